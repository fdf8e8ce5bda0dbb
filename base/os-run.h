/* os-run.h: child processes: run to completion (captured, timed, piped), or read as they
 * go (ninja under `cuwheel build`); PATH search; argv as a shell line. POSIX in
 * base/os-spawn-posix.c and base/os-proc-posix.c. */
#ifndef CUWHEEL_BASE_OS_RUN_H
#define CUWHEEL_BASE_OS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/strbuf.h"

/* Searches env's PATH (base/env.h; unset: /usr/local/bin:/usr/bin:/bin, empty: nowhere) for an
 * executable; a name with a '/' is only checked. Returns its path or NULL. */
char *os_which(struct arena *a, const char *const *env, const char *name);

struct os_run {
	const char *const *argv; /* argv[0] searched in PATH when it has no '/' */
	const char *cwd;         /* NULL: inherit */
	const char *const *env;  /* NULL: inherit; else "K=V" entries added/overriding */
	bool env_only;           /* env is the child's whole environment (nothing inherited) */
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
/* Starts r->argv (searched in PATH) in the background, in a process group of its own and
 * registered for signal forwarding, with r->cwd and r->env (r->env_only) as os_run takes them
 * (the environment is built in a), stdin /dev/null and stdout+stderr written to log (created
 * or truncated). False + diagnostic when it cannot be started. */
bool os_bg_start(struct diag *d, struct arena *a, const struct os_run *r, const char *log,
                 pid_t *pid);
/* Ends a child os_bg_start started: when stop, SIGTERM to its process group first (a child that
 * exited is only reaped); waits for it, *status its exit code (128+signal when killed). */
void os_bg_end(pid_t pid, bool stop, int *status);
/* Sends this process's stdout and stderr (and so its children's) to path, created or
 * truncated, from now on; false (errno set) when it cannot be opened. */
bool os_output_to(const char *path);
/* Renders argv as a shell-quoted line (for --dry-run and messages). */
char *os_argv_str(struct arena *a, const char *const *argv);

#endif
