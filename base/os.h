/* os.h: the thin platform layer (files, processes, temp files). POSIX in os-posix.c. */
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
/* Returns an absolute, symlink-resolved path in the arena, or NULL (errno set). */
char *os_realpath(struct arena *a, const char *path);
/* Returns an absolute path (cwd joined, not resolved) in the arena. */
char *os_abspath(struct arena *a, const char *path);
/* Joins two path parts with '/'. */
char *os_join(struct arena *a, const char *dir, const char *name);
/* Lists the entries of dir (without . and ..), sorted; false when it cannot be opened. */
bool os_list_dir(struct arena *a, const char *dir, struct strv *out);
/* Searches PATH for an executable; returns its path or NULL. */
char *os_which(struct arena *a, const char *name);

/* Opens (creating) a lock file; inherit keeps it open across exec so child processes hold the
 * lock too. Returns the fd, or -1 + diagnostic. */
int os_lock_open(struct diag *d, const char *path, bool inherit);
/* Takes an exclusive lock on fd without waiting; false when another process holds it. */
bool os_lock_try(int fd);
/* Waits for an exclusive lock on fd (retrying on EINTR); false + diagnostic naming path. */
bool os_lock_wait(struct diag *d, int fd, const char *path);

/* Temp files that must vanish on error or signal: register after creating, forget after the
 * final rename. The signal handlers installed by os_install_signal_cleanup unlink them. */
void os_tmp_register(const char *path);
void os_tmp_forget(const char *path);
/* Unlinks every registered temp file (also called from the signal handler). */
void os_tmp_cleanup(void);
/* Installs SIGINT/SIGTERM/SIGHUP handlers that clean temp files and re-raise. */
void os_install_signal_cleanup(void);
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
};

/* Runs a command to completion. Returns false + diagnostic only when it could not be started;
 * *status gets the exit code (128+signal when killed). */
bool os_run(struct diag *d, const struct os_run *r, struct strbuf *out, int *status);
/* Renders argv as a shell-quoted line (for --dry-run and messages). */
char *os_argv_str(struct arena *a, const char *const *argv);

#endif
