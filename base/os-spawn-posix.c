/* os-spawn-posix.c: running commands from an argv (base/os-run.h): posix_spawn into a process group
 * of their own, output drained with limits and timeouts, pipes between two commands. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addchdir_np */
#include "base/os-file.h"
#include "base/os-run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/os-posix.h"

/* Spawn attributes every child gets: its own process group (the handler signals the group),
 * default dispositions for the signals cuwheel handles or ignores (SIGXFSZ's SIG_IGN would be
 * inherited through exec), and the signal mask from before the caller blocked signals. */
static void os_spawn_attrs(posix_spawnattr_t *at, const sigset_t *mask)
{
	posix_spawnattr_init(at);
	sigset_t def;
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	sigaddset(&def, SIGXFSZ);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(at, &def);
	posix_spawnattr_setsigmask(at, mask);
	posix_spawnattr_setpgroup(at, 0);
	posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
	                                 POSIX_SPAWN_SETSIGMASK);
}

/* posix_spawnp with the attributes above, registering the child before a signal can be
 * handled (signals are blocked from the spawn to the registration). Returns the errno. */
int os_spawn_registered(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        char *const *argv, char *const *envp)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	posix_spawnattr_t at;
	os_spawn_attrs(&at, &old);
	int rc = posix_spawnp(pid, file, fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	if (rc == 0)
		os_child_register(*pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Reaps pid (blocking or not) and forgets it in one step the handler cannot split: a blocking
 * wait first waits without reaping (WNOWAIT), so the pid is never free while registered. */
pid_t os_reap(pid_t pid, int *ws, bool block)
{
	if (block) {
		siginfo_t si;
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0)
			if (errno != EINTR)
				return -1;
	}
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t r = waitpid(pid, ws, WNOHANG);
	int err = errno;
	if (r == pid || (r < 0 && err == ECHILD))
		os_child_forget(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return r;
}

char *os_which(struct arena *a, const char *const *env, const char *name)
{
	if (strchr(name, '/'))
		return os_is_exec(name) ? arena_strdup(a, name) : NULL;
	const char *path = env_value(env, "PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		if (n) {
			char *cand = arena_printf(a, "%.*s/%s", (int)n, path, name);
			if (os_is_exec(cand))
				return cand;
		}
		path += n + (colon ? 1 : 0);
	}
	return NULL;
}

/* Builds the child's environment: the parent's, with overrides from r->env. */
static char **os_make_env(struct arena *a, const char *const *extra)
{
	size_t n = 0, m = 0;
	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = arena_calloc(a, n + m + 1, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool overridden = false;
		for (size_t j = 0; j < m; j++)
			if (!strncmp(extra[j], environ[i], kl) && extra[j][kl] == '=')
				overridden = true;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

static int64_t os_now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* How reading a child's output ended. */
enum drain_end {
	DRAIN_EOF,      /* every writer closed the pipe */
	DRAIN_EXITED,   /* the child exited; what it left behind still held the pipe */
	DRAIN_TIMEOUT,  /* timeout_s ran out */
	DRAIN_TOO_MUCH, /* a probe printed more than max */
};

/* A bounded capture: the first max bytes, then (for a tool, not a probe) a rolling tail. */
struct drain {
	struct strbuf *out; /* NULL: discard */
	size_t max;
	bool probe;
	size_t total;
	struct strbuf tail;
};

/* Adds n bytes of output; false when a probe went past its max. */
static bool drain_add(struct drain *dr, const char *buf, size_t n)
{
	dr->total += n;
	if (!dr->out)
		return true;
	size_t keep = dr->out->len < dr->max ? dr->max - dr->out->len : 0;
	if (keep > n)
		keep = n;
	sb_add(dr->out, buf, keep);
	if (keep == n)
		return true;
	if (dr->probe)
		return false;
	sb_add(&dr->tail, buf + keep, n - keep);
	if (dr->tail.len > 2 * OS_OUTPUT_TAIL) { /* keep the last OS_OUTPUT_TAIL bytes */
		memmove(dr->tail.buf, dr->tail.buf + dr->tail.len - OS_OUTPUT_TAIL, OS_OUTPUT_TAIL);
		dr->tail.len = OS_OUTPUT_TAIL;
	}
	return true;
}

/* Appends the kept tail after a line saying how much was left out, and frees it. */
static void drain_finish(struct drain *dr)
{
	if (dr->out && dr->tail.len) {
		size_t tail = dr->tail.len > OS_OUTPUT_TAIL ? OS_OUTPUT_TAIL : dr->tail.len;
		sb_printf(dr->out, "\n[cuwheel: %zu bytes of output left out]\n",
		          dr->total - dr->out->len - tail);
		sb_add(dr->out, dr->tail.buf + dr->tail.len - tail, tail);
	}
	sb_release(&dr->tail);
}

/* True once pid (a child, not reaped) has exited; it stays a zombie, so its process group id
 * cannot be reused before the caller reaps it. */
static bool os_child_exited(pid_t pid)
{
	siginfo_t si;
	si.si_pid = 0;
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Reads fd into dr until every writer closed it, or (pid > 0) pid has exited and the pipe has
 * been quiet for 100 ms (or 1 s has passed since), or timeout_s (> 0) ran out, or a probe
 * printed too much; closes fd. */
static enum drain_end drain_fd(int fd, struct drain *dr, pid_t pid, int timeout_s)
{
	int64_t deadline = os_now_ms() + (int64_t)timeout_s * 1000, exited_at = -1;
	char tbuf[16384];
	enum drain_end end = DRAIN_EOF;
	for (;;) {
		int64_t now = os_now_ms();
		if (pid > 0 && exited_at < 0 && os_child_exited(pid))
			exited_at = now;
		int wait = pid > 0 ? (exited_at >= 0 ? 100 : 50) : -1;
		if (timeout_s > 0) {
			int64_t left = deadline - now;
			if (left <= 0) {
				end = DRAIN_TIMEOUT;
				break;
			}
			if (wait < 0 || left < wait)
				wait = left > INT_MAX ? INT_MAX : (int)left;
		}
		if (exited_at >= 0 && now - exited_at > 1000) {
			end = DRAIN_EXITED;
			break;
		}
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int pr = poll(&pfd, 1, wait);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			if (exited_at >= 0) {
				end = DRAIN_EXITED;
				break;
			}
			continue;
		}
		ssize_t n = read(fd, tbuf, sizeof(tbuf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (!drain_add(dr, tbuf, (size_t)n)) {
			end = DRAIN_TOO_MUCH;
			break;
		}
	}
	close(fd);
	return end;
}

bool os_run(struct diag *d, const struct os_run *r, struct strbuf *out, int *status)
{
	struct arena a = {0};
	int pipefd[2] = {-1, -1};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (r->capture) {
		if (pipe2(pipefd, O_CLOEXEC) != 0) {
			diag_errno(d, r->argv[0], "cannot create a pipe for");
			posix_spawn_file_actions_destroy(&fa);
			return false;
		}
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	} else if (r->quiet_stdout) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	}
	posix_spawn_file_actions_addopen(&fa, 0, r->stdin_path ? r->stdin_path : "/dev/null",
	                                 O_RDONLY, 0);
	if (r->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, r->cwd);
	char **env = r->env_only ? (char **)r->env : r->env ? os_make_env(&a, r->env) : environ;
	pid_t pid;
	int rc = os_spawn_registered(&pid, r->argv[0], &fa, (char *const *)r->argv, env);
	posix_spawn_file_actions_destroy(&fa);
	if (r->capture)
		close(pipefd[1]);
	if (rc != 0) {
		if (r->capture)
			close(pipefd[0]);
		errno = rc;
		diag_errno(d, r->argv[0], "cannot run");
		arena_free(&a);
		return false;
	}
	enum drain_end end = DRAIN_EOF;
	if (r->capture) {
		struct drain dr = {.out = out,
		                   .max = r->max_output ? r->max_output : OS_OUTPUT_MAX,
		                   .probe = r->probe};
		end = drain_fd(pipefd[0], &dr, pid, r->timeout_s);
		drain_finish(&dr);
	}
	if (end != DRAIN_EOF)
		kill(-pid, SIGKILL); /* its own process group (os_spawn_attrs), with what it left */
	int ws;
	while (os_reap(pid, &ws, true) != pid) {
		if (errno != EINTR) {
			diag_errno(d, r->argv[0], "cannot wait for");
			arena_free(&a);
			return false;
		}
	}
	*status = end == DRAIN_TIMEOUT    ? OS_STATUS_TIMED_OUT
	          : end == DRAIN_TOO_MUCH ? OS_STATUS_TOO_MUCH_OUTPUT
	          : WIFEXITED(ws)         ? WEXITSTATUS(ws)
	                                  : 128 + WTERMSIG(ws);
	arena_free(&a);
	return true;
}

bool os_bg_start(struct diag *d, struct arena *a, const struct os_run *r, const char *log,
                 pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (r->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, r->cwd);
	char **env = r->env_only ? (char **)r->env : r->env ? os_make_env(a, r->env) : environ;
	int rc = os_spawn_registered(pid, r->argv[0], &fa, (char *const *)r->argv, env);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		diag_errno(d, r->argv[0], "cannot run");
		return false;
	}
	return true;
}

void os_bg_end(pid_t pid, bool stop, int *status)
{
	int ws = 0;
	if (stop && os_reap(pid, &ws, false) != pid)
		kill(-pid, SIGTERM);
	else if (stop) {
		*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
		return;
	}
	while (os_reap(pid, &ws, true) != pid)
		if (errno != EINTR) {
			*status = 127;
			return;
		}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* Waits for pid; false + diagnostic naming argv0 when waiting fails. */
static bool os_wait(struct diag *d, pid_t pid, const char *argv0, int *status)
{
	int ws;
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			diag_errno(d, argv0, "cannot wait for");
			return false;
		}
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return true;
}

bool os_run_pipe(struct diag *d, const char *const *from, const struct os_run *r,
                 struct strbuf *out, int *from_status, int *status)
{
	struct arena a = {0};
	int data[2] = {-1, -1}, cap[2] = {-1, -1};
	if (pipe2(data, O_CLOEXEC) != 0 || (r->capture && pipe2(cap, O_CLOEXEC) != 0)) {
		diag_errno(d, from[0], "cannot create a pipe for");
		if (data[0] >= 0) {
			close(data[0]);
			close(data[1]);
		}
		return false;
	}
	char **env = r->env_only ? (char **)r->env : r->env ? os_make_env(&a, r->env) : environ;
	posix_spawn_file_actions_t fa, fb;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_init(&fb);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, data[1], 1);
	posix_spawn_file_actions_adddup2(&fb, data[0], 0);
	if (r->capture) {
		posix_spawn_file_actions_adddup2(&fa, cap[1], 2);
		posix_spawn_file_actions_adddup2(&fb, cap[1], 1);
		posix_spawn_file_actions_adddup2(&fb, cap[1], 2);
	} else if (r->quiet_stdout) {
		posix_spawn_file_actions_addopen(&fb, 1, "/dev/null", O_WRONLY, 0);
	}
	if (r->cwd) {
		posix_spawn_file_actions_addchdir_np(&fa, r->cwd);
		posix_spawn_file_actions_addchdir_np(&fb, r->cwd);
	}
	pid_t pa = -1, pb = -1;
	int rca = posix_spawnp(&pa, from[0], &fa, NULL, (char *const *)from, env);
	int rcb =
	    rca == 0 ? posix_spawnp(&pb, r->argv[0], &fb, NULL, (char *const *)r->argv, env) : 0;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawn_file_actions_destroy(&fb);
	close(data[0]);
	close(data[1]);
	if (r->capture)
		close(cap[1]);
	bool ok = true;
	if (rca != 0 || rcb != 0) {
		errno = rca ? rca : rcb;
		diag_errno(d, rca ? from[0] : r->argv[0], "cannot run");
		ok = false;
	}
	if (r->capture) {
		struct drain dr = {.out = out,
		                   .max = r->max_output ? r->max_output : OS_OUTPUT_MAX};
		drain_fd(cap[0], &dr, -1, 0);
		drain_finish(&dr);
	}
	*from_status = *status = 0;
	if (pa > 0 && !os_wait(d, pa, from[0], from_status))
		ok = false;
	if (pb > 0 && !os_wait(d, pb, r->argv[0], status))
		ok = false;
	arena_free(&a);
	return ok;
}

char *os_argv_str(struct arena *a, const char *const *argv)
{
	struct strbuf sb = {0};
	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];
		if (i)
			sb_putc(&sb, ' ');
		bool plain = *s != '\0';
		for (const char *p = s; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			            "-_./=:,+@%",
			            *p))
				plain = false;
		if (plain) {
			sb_puts(&sb, s);
			continue;
		}
		sb_putc(&sb, '\'');
		for (const char *p = s; *p; p++) {
			if (*p == '\'')
				sb_puts(&sb, "'\\''");
			else
				sb_putc(&sb, *p);
		}
		sb_putc(&sb, '\'');
	}
	return sb_to_arena(&sb, a);
}
