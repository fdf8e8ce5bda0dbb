/* os-proc-posix.c: a child read as it runs, optionally on a pseudo-terminal (base/os-run.h), and
 * the process's own facts (its executable, the CPU count, sleeping). */
#define _GNU_SOURCE /* posix_openpt, cfmakeraw */
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-sys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/os-posix.h"

/* Opens a pseudo-terminal, raw and with no width (so a program that prints status lines only
 * on a terminal, as ninja does, prints them, and never elides one). Returns the master fd and
 * the slave in *slave, or -1. */
static int os_pty_open(int *slave)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -1;
	char *name = (grantpt(m) == 0 && unlockpt(m) == 0) ? ptsname(m) : NULL;
	int s = name ? open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	if (s < 0) {
		close(m);
		return -1;
	}
	struct termios tio;
	if (tcgetattr(s, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(s, TCSANOW, &tio);
	}
	struct winsize ws = {0};
	ioctl(s, TIOCSWINSZ, &ws);
	*slave = s;
	return m;
}

bool os_proc_start(struct diag *d, const char *const *argv, const char *const *envp, bool want_pty,
                   struct os_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->fd = p->slave_fd = -1;
	int slave = -1, master = want_pty ? os_pty_open(&slave) : -1;
	p->pty = master >= 0;
	if (!p->pty) {
		int pfd[2];
		if (pipe2(pfd, O_CLOEXEC) != 0) {
			diag_errno(d, argv[0], "cannot create a pipe for");
			return false;
		}
		master = pfd[0];
		slave = pfd[1];
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, slave, 1);
	posix_spawn_file_actions_adddup2(&fa, slave, 2);
	int err =
	    os_spawn_registered(&p->pid, argv[0], &fa, (char *const *)argv, (char *const *)envp);
	posix_spawn_file_actions_destroy(&fa);
	if (!p->pty) {
		close(slave); /* a pipe: EOF when the child exits */
		slave = -1;
	}
	if (err != 0) {
		errno = err;
		diag_errno(d, argv[0], "cannot run");
		close(master);
		if (slave >= 0)
			close(slave);
		return false;
	}
	p->fd = master;
	p->slave_fd = slave;
	return true;
}

long os_proc_read(struct os_proc *p, char *buf, size_t n, int timeout_ms)
{
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	int pr = poll(&pfd, 1, timeout_ms);
	if (pr <= 0)
		return -1; /* nothing in time, or interrupted */
	ssize_t got = read(p->fd, buf, n);
	if (got > 0)
		return (long)got;
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return -1;
	return 0; /* end of output; a pseudo-terminal says EIO once the child is gone */
}

bool os_proc_wait(struct os_proc *p, bool block, int *status)
{
	if (p->reaped)
		return true;
	int ws = 0;
	pid_t r;
	do
		r = os_reap(p->pid, &ws, block);
	while (block && r < 0 && errno == EINTR);
	if (r != p->pid)
		return false;
	p->reaped = true;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return true;
}

void os_proc_close(struct os_proc *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->slave_fd >= 0)
		close(p->slave_fd);
	p->fd = p->slave_fd = -1;
}

bool os_output_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	bool ok = dup2(fd, 1) == 1 && dup2(fd, 2) == 2;
	close(fd);
	return ok;
}

char *os_self_exe(struct arena *a)
{
	return os_realpath(a, "/proc/self/exe");
}

int os_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

void os_sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
