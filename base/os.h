/* os.h: the thin platform layer (files, processes, temp files). POSIX in base/os-file-posix.c,
 * os-proc-posix.c, os-spawn-posix.c and os-tmp-posix.c; product code outside base/ calls no
 * POSIX file or process function itself (test_folder_graph). */
#ifndef CUWHEEL_BASE_OS_H
#define CUWHEEL_BASE_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"

/* Reads a whole file into the arena (NUL-terminated) and fills src; false + diagnostic on error. */
bool os_read_file(struct arena *a, struct diag *d, const char *path, struct source *src);
/* As os_read_file, but a file of more than max bytes is refused, by its size before reading
 * and again while reading (it may grow): false + "N bytes is over the max-byte limit for
 * what" naming path, as the sdist reader and os_read_beneath report their caps. */
bool os_read_file_max(struct arena *a, struct diag *d, const char *path, size_t max,
                      const char *what, struct source *src);
/* Reads all of a stream (stdin) into src; false + diagnostic on error. */
bool os_read_fd(struct arena *a, struct diag *d, int fd, const char *name, struct source *src);
/* The output rule, one for every path cuwheel writes (README, "The output rule"):
 *   OS_OUT_FILE  a file written as a whole (temp beside it, then rename): the path must be
 *                absent or a regular file; a symlink (even to a file), directory, FIFO,
 *                device or socket is refused, never replaced or written through;
 *   OS_OUT_TREE  a directory replaced as a whole (`index --out`): absent or a real directory,
 *                not a symlink;
 *   OS_OUT_DIR   a directory written into (-o of pack/retag, report --out, dist-dir,
 *                build-dir): absent or a directory (a symlink to one is followed).
 * os_tmp_beside applies OS_OUT_FILE to every atomic write, and os_commit_tmp again right
 * before its rename. Returns false + diagnostic naming path and what it is. */
enum os_output {
	OS_OUT_FILE,
	OS_OUT_TREE,
	OS_OUT_DIR,
};
bool os_output_check(struct diag *d, const char *path, enum os_output kind);
/* Returns true when path is inside dir or is dir: dir resolved (false when it does not
 * exist), path resolved as far as it exists (an output dir may not exist yet). */
bool os_path_inside(struct arena *a, const char *path, const char *dir);
/* Writes data to path atomically: a temp file beside it, fsync, rename. False + diagnostic. */
bool os_write_atomic(struct diag *d, const char *path, const void *data, size_t len, mode_t mode);
/* os_write_atomic unless path already holds exactly data (its mtime then stays, so ninja and
 * ccache see no change). A missing or unreadable old file is rewritten. */
bool os_write_if_changed(struct arena *a, struct diag *d, const char *path, const void *data,
                         size_t len, mode_t mode);
/* Copies one regular file to dest, created or truncated (mode 0755 when any x bit of src is
 * set, else 0644). False + diagnostic. */
bool os_copy_file(struct diag *d, const char *src, const char *dest);
/* os_copy_file atomically: into a temp file beside dest, fsynced and renamed over it
 * (os_commit_tmp), so dest is the old file or the whole copy. False + diagnostic. */
bool os_copy_file_atomic(struct arena *a, struct diag *d, const char *src, const char *dest);
/* Creates a directory and its parents (mode 0755); false + diagnostic on error. */
bool os_mkdir_p(struct diag *d, const char *path);
/* Removes a tree (like rm -rf); false + diagnostic on error. Refuses "" and "/". */
bool os_rm_rf(struct diag *d, const char *path);
/* Returns true when path exists (any type, not following a final symlink: false). */
bool os_exists(const char *path);
/* Returns true when path is a directory. */
bool os_is_dir(const char *path);
/* Returns true when path is an executable regular file. */
bool os_is_exec(const char *path);
/* Returns the mtime in nanoseconds, or -1 when path cannot be stat'ed. */
int64_t os_mtime_ns(const char *path);
/* What stat or lstat tells of a path: its kind, size, permission bits, identity and times. */
enum os_kind {
	OS_KIND_FILE,
	OS_KIND_DIR,
	OS_KIND_LINK,
	OS_KIND_FIFO,
	OS_KIND_OTHER, /* a device or socket */
};
struct os_stat {
	enum os_kind kind;
	uint64_t size;
	unsigned mode; /* the permission bits (07777) */
	uint64_t dev, ino;
	int64_t mtime_ns, ctime_ns;
};
/* stat(2), following a final symlink: false (errno set, no diagnostic) when path cannot be
 * stat'ed; the callers decide whether that is an error. */
bool os_stat(const char *path, struct os_stat *out);
/* lstat(2): as os_stat, but a final symlink is described itself (OS_KIND_LINK). */
bool os_lstat(const char *path, struct os_stat *out);
/* unlink(2), quietly: false (errno set) when path could not be removed. */
bool os_unlink(const char *path);
/* rename(2) of a file or directory, quietly: false (errno set). A file written as a whole goes
 * through os_tmp_beside + os_commit_tmp instead (fsync and cleanup). */
bool os_rename(const char *from, const char *to);
/* symlink(2), quietly: creates link pointing at target; false (errno set). */
bool os_symlink(const char *target, const char *link);
/* link(2), quietly: a hard link to from at to; false (errno set: EXDEV across file systems). */
bool os_link(const char *from, const char *to);
/* access(2) with R_OK or W_OK, quietly: false (errno set) when this process may not read (write)
 * path. */
bool os_can_read(const char *path);
bool os_can_write(const char *path);
/* chmod(2), quietly: false (errno set). */
bool os_chmod(const char *path, unsigned mode);
/* Appends text to path (created 0644), quietly: false when it cannot. For traces tests read. */
bool os_append(const char *path, const char *text);
/* fsyncs a directory, so that renames into it survive a crash; quiet, best effort. */
void os_fsync_dir(const char *dir);
/* Returns an absolute, symlink-resolved path in the arena, or NULL (errno set). */
char *os_realpath(struct arena *a, const char *path);
/* Returns an absolute path (cwd joined, not resolved) in the arena. */
char *os_abspath(struct arena *a, const char *path);
/* Joins two path parts with '/'. */
char *os_join(struct arena *a, const char *dir, const char *name);
/* Lists the entries of dir (without . and ..), sorted; false when it cannot be opened. */
bool os_list_dir(struct arena *a, const char *dir, struct strv *out);
/* Searches env's PATH (base/env.h; unset: /usr/local/bin:/usr/bin:/bin, empty: nowhere) for an
 * executable; a name with a '/' is only checked. Returns its path or NULL. */
char *os_which(struct arena *a, const char *const *env, const char *name);

/* Opens (creating) a lock file; inherit keeps it open across exec so child processes hold the
 * lock too. Returns the fd, or -1 + diagnostic. */
int os_lock_open(struct diag *d, const char *path, bool inherit);
/* Takes an exclusive lock on fd without waiting; false when another process holds it. */
bool os_lock_try(int fd);
/* Waits for an exclusive lock on fd (retrying on EINTR); false + diagnostic naming path. */
bool os_lock_wait(struct diag *d, int fd, const char *path);
/* Writes this process's pid as the whole content of the lock file open on fd (best effort). */
void os_lock_set_holder(int fd);
/* Reads the pid a holder wrote into the lock file open on fd into buf (n bytes with the NUL);
 * "" when there is none. */
void os_lock_holder(int fd, char *buf, size_t n);

/* Temp directories (`index`'s .site.new.*) that must vanish on error or signal: register after
 * creating; the signal handlers installed by os_install_signal_cleanup remove them with
 * everything in them. */
void os_tmp_register_dir(const char *path);
/* Creates a unique directory from tmpl (ending in XXXXXX, filled in place) and registers it as
 * above, with signals blocked in between so none can leave it behind; false + diagnostic. */
bool os_mkdtemp_registered(struct diag *d, char *tmpl);
void os_tmp_forget(const char *path);
/* Removes every registered temp file and dir (also called from the signal handler). */
void os_tmp_cleanup(void);
/* Opens each of fds 0-2 that is closed on /dev/null (stdin read-only, stdout and stderr
 * write-only), so no file cuwheel opens later (the build dir's lock) becomes its output. */
void os_std_fds_open(void);
/* Installs the signal policy: SIGINT/SIGTERM/SIGHUP, and SIGPIPE (a closed reader of cuwheel's
 * output) as SIGTERM, are forwarded to every child running (each in a process group of its
 * own), waited for (SIGKILL after OS_CHILD_GRACE_S seconds),
 * then the temp files are removed and cuwheel dies of the signal, so nothing it started
 * outlives it and nothing is written after it; SIGXFSZ is ignored, so a write past
 * `ulimit -f` fails with EFBIG ("File too large") and is reported like any write error. */
void os_install_signal_cleanup(void);
enum { OS_CHILD_GRACE_S = 10 };
/* Creates a unique temp file next to `final` (same directory, hidden name) and registers it.
 * Returns the open fd and stores the path in *tmp_path; -1 + diagnostic on error. */
int os_tmp_beside(struct arena *a, struct diag *d, const char *final, char **tmp_path);
/* fsyncs fd, closes it, renames tmp over final and forgets tmp; false + diagnostic (and unlink). */
bool os_commit_tmp(struct diag *d, int fd, const char *tmp, const char *final);

struct os_run {
	const char *const *argv; /* argv[0] searched in PATH when it has no '/' */
	const char *cwd;         /* NULL: inherit */
	const char *const *env;  /* NULL: inherit; else "K=V" entries added/overriding */
	bool capture;            /* capture stdout+stderr into out; else inherit */
	bool quiet_stdout;       /* discard stdout when not capturing */
	const char *stdin_path;  /* NULL: /dev/null */
	int timeout_s;           /* with capture: after this many seconds the child's process
	                          * group is killed (SIGKILL) and *status is OS_STATUS_TIMED_OUT;
	                          * 0: no limit */
	size_t max_output;       /* with capture: the bytes of output kept (0: OS_OUTPUT_MAX) */
	bool probe;              /* with capture: the output is an answer to parse, so more than
	                          * max_output is an error: the group is killed and *status is
	                          * OS_STATUS_TOO_MUCH_OUTPUT. Else the first max_output bytes and
	                          * the last OS_OUTPUT_TAIL are kept, with a line saying how many
	                          * were left out between them. */
};

/* The *status of an os_run whose timeout_s ran out. */
#define OS_STATUS_TIMED_OUT (-1)
/* The *status of a probe (os_run.probe) that printed more than its max_output. */
#define OS_STATUS_TOO_MUCH_OUTPUT (-2)
/* The output a capture keeps by default (1 MiB), and the tail kept of a longer tool output. */
enum { OS_OUTPUT_MAX = 1 << 20, OS_OUTPUT_TAIL = 64 << 10 };

/* Runs a command to completion (or to its timeout). With capture, reading stops once the
 * command has exited and its output has gone quiet for 100 ms, even when a process it left
 * in the background still holds the pipe (that process group is then killed), so a wrapper's
 * background child cannot stall the caller. Returns false + diagnostic only when it could not
 * be started; *status gets the exit code (128+signal when killed). */
bool os_run(struct diag *d, const struct os_run *r, struct strbuf *out, int *status);
/* Runs `from | r->argv` (r->stdin_path ignored): from's stdout feeds r's stdin, from's stderr
 * goes where r's output goes. Returns false + diagnostic only when one could not be started;
 * *from_status and *status get the exit codes (128+signal when killed). */
bool os_run_pipe(struct diag *d, const char *const *from, const struct os_run *r,
                 struct strbuf *out, int *from_status, int *status);

/* A child whose output is read as it comes (ninja under `cuwheel build`). */
struct os_proc {
	pid_t pid;
	int fd;       /* read end of its stdout+stderr: a pseudo-terminal's master, or a pipe */
	int slave_fd; /* the pseudo-terminal's slave, kept open while it runs; -1 for a pipe */
	bool pty;     /* fd is a pseudo-terminal (raw, no width) */
	bool reaped;
};
/* Starts argv (searched in PATH) with envp as its whole environment, stdin /dev/null, and
 * stdout+stderr on a pseudo-terminal when want_pty and one can be had, else on a pipe. The
 * child is registered for signal forwarding. False + diagnostic when it cannot be started. */
bool os_proc_start(struct diag *d, const char *const *argv, const char *const *envp, bool want_pty,
                   struct os_proc *p);
/* Waits up to timeout_ms for output and reads it into buf: returns the bytes read (> 0), 0 at
 * the end of the output (or a read error), -1 when none came in time. */
long os_proc_read(struct os_proc *p, char *buf, size_t n, int timeout_ms);
/* Reaps the child (block: wait for it); true once it has exited, with *status its exit code
 * (128+signal when killed); it is then no longer forwarded signals. */
bool os_proc_wait(struct os_proc *p, bool block, int *status);
/* Closes the output descriptors (after os_proc_wait). */
void os_proc_close(struct os_proc *p);
/* Kills the child's whole process group (SIGKILL): it and whatever it started. */
void os_proc_kill(struct os_proc *p);
/* Returns the number of CPUs online (at least 1). */
int os_cpu_count(void);
/* Returns the absolute path of the running cuwheel executable, or NULL (errno set). */
char *os_self_exe(struct arena *a);
/* Renders argv as a shell-quoted line (for --dry-run and messages). */
char *os_argv_str(struct arena *a, const char *const *argv);
/* Sleeps for ms milliseconds (resumed after a signal handler returns). */
void os_sleep_ms(long ms);

#endif
