/* os-tmp-posix.c: what must vanish when cuwheel is interrupted: the registries of temp files
 * and of running children, and the signal handlers that clean them up (base/os-tmp.h). */
#include "base/os-tmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/os-posix.h"

/* Temp-file registry: a fixed array because the signal handler may only touch plain memory.
 * This and the children's registry below are the mutable global state, and they exist for the
 * handler alone. */
enum { OS_TMP_MAX = 64, OS_TMP_PATH = 4096, OS_CHILD_MAX = 64 };
/* Lock-free atomics (probes run in threads; the handler may run in any of them): a slot is
 * claimed by compare-and-swap, so two threads never take the same one. */
static char os_tmp_paths[OS_TMP_MAX][OS_TMP_PATH];
static _Atomic int os_tmp_used[OS_TMP_MAX]; /* 0 free, 1 file, 2 directory, 3 being filled */
/* The children running, each the leader of its own process group. */
static _Atomic int os_child_pids[OS_CHILD_MAX];

static void os_tmp_add(const char *path, int kind)
{
	for (int i = 0; i < OS_TMP_MAX; i++) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&os_tmp_used[i], &expect, 3)) {
			snprintf(os_tmp_paths[i], OS_TMP_PATH, "%s", path);
			atomic_store(&os_tmp_used[i], kind);
			return;
		}
	}
}

/* Temp files that must vanish on error or signal: register after creating, forget after the
 * final rename. The signal handlers installed by os_install_signal_cleanup unlink them. */
void os_tmp_register(const char *path)
{
	os_tmp_add(path, 1);
}

void os_tmp_register_dir(const char *path)
{
	os_tmp_add(path, 2);
}

bool os_mkdtemp_registered(struct diag *d, char *tmpl)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	bool ok = mkdtemp(tmpl) != NULL;
	int err = errno;
	if (ok)
		os_tmp_register_dir(tmpl);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!ok) {
		errno = err;
		diag_errno(d, tmpl, "cannot create");
	}
	return ok;
}

void os_tmp_forget(const char *path)
{
	for (int i = 0; i < OS_TMP_MAX; i++) {
		int k = atomic_load(&os_tmp_used[i]);
		if ((k == 1 || k == 2) && strcmp(os_tmp_paths[i], path) == 0)
			atomic_compare_exchange_strong(&os_tmp_used[i], &k, 0);
	}
}

/* One record of getdents64(2) (the kernel's struct linux_dirent64): the signal handler lists
 * directories with the raw system call, since readdir() is not async-signal-safe. */
struct os_dirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Removes everything under the directory dfd (closed here) with async-signal-safe calls only
 * (openat, getdents64, unlinkat), so the signal handler can use it. Depth-limited: cuwheel's
 * temp trees are a few levels deep. */
static void os_rm_tree_at(int dfd, int depth)
{
	_Alignas(struct os_dirent64) char buf[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n <= 0)
			break;
		int removed = 0, seen = 0;
		for (long off = 0; off < n;) {
			const struct os_dirent64 *e = (const struct os_dirent64 *)(buf + off);
			off += e->reclen;
			if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
				continue;
			seen++;
			if (e->type != DT_DIR && unlinkat(dfd, e->name, 0) == 0) {
				removed++;
				continue;
			}
			/* A directory (or a type the file system did not say: DT_UNKNOWN). */
			int sub = depth < 16
			              ? openat(dfd, e->name,
			                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			              : -1;
			if (sub >= 0)
				os_rm_tree_at(sub, depth + 1);
			if (unlinkat(dfd, e->name, AT_REMOVEDIR) == 0)
				removed++;
		}
		if (!seen || !removed)
			break; /* empty, or what is left cannot be removed: never loop in a handler
			        */
		lseek(dfd, 0, SEEK_SET); /* entries removed: read again until none is left */
	}
	close(dfd);
}

void os_tmp_cleanup(void)
{
	for (int i = 0; i < OS_TMP_MAX; i++) {
		int k = atomic_exchange(&os_tmp_used[i], 0);
		if (k == 1) {
			unlink(os_tmp_paths[i]);
		} else if (k == 2) {
			int fd =
			    open(os_tmp_paths[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0)
				os_rm_tree_at(fd, 0);
			rmdir(os_tmp_paths[i]);
		}
	}
}

void os_child_register(pid_t pid)
{
	for (int i = 0; i < OS_CHILD_MAX; i++) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&os_child_pids[i], &expect, (int)pid))
			return;
	}
}

void os_child_forget(pid_t pid)
{
	for (int i = 0; i < OS_CHILD_MAX; i++) {
		int expect = (int)pid;
		atomic_compare_exchange_strong(&os_child_pids[i], &expect, 0);
	}
}

/* True while a process of group pgid is alive (zombies of others are reaped by init). */
static bool os_group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

/* The signal handler's half of the policy: forward sig to every child's group, wait for the
 * groups to empty (reaping our children), SIGKILL what is left after the grace period. */
static void os_children_stop(int sig)
{
	bool any = false;
	for (int i = 0; i < OS_CHILD_MAX; i++) {
		pid_t pid = (pid_t)atomic_load(&os_child_pids[i]);
		if (pid > 0) {
			any = true;
			if (kill(-pid, sig) != 0)
				kill(pid, sig);
		}
	}
	if (!any)
		return;
	struct timespec step = {0, 20 * 1000 * 1000};
	for (int round = 0;; round++) {
		bool left = false;
		for (int i = 0; i < OS_CHILD_MAX; i++) {
			pid_t pid = (pid_t)atomic_load(&os_child_pids[i]);
			if (pid <= 0)
				continue;
			int st;
			pid_t r = waitpid(pid, &st, WNOHANG);
			bool leader_gone = r == pid || (r < 0 && errno == ECHILD);
			if (leader_gone && !os_group_alive(pid)) {
				atomic_store(&os_child_pids[i], 0);
				continue;
			}
			left = true;
			if (round == OS_CHILD_GRACE_S * 50)
				kill(-pid, SIGKILL);
		}
		if (!left || round > OS_CHILD_GRACE_S * 50 + 250)
			break; /* the grace period, then 5 s for SIGKILL to act */
		nanosleep(&step, NULL);
	}
}

#ifdef __linux__
/* Sends sig to every child of this process (any thread's), read from
 * /proc/self/task/<tid>/children with async-signal-safe calls. */
static void os_signal_children(int sig)
{
	int td = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (td < 0)
		return;
	_Alignas(struct os_dirent64) char buf[2048];
	long n;
	while ((n = syscall(SYS_getdents64, td, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			const struct os_dirent64 *e = (const struct os_dirent64 *)(buf + off);
			off += e->reclen;
			if (e->name[0] < '0' || e->name[0] > '9')
				continue;
			char path[64] = "/proc/self/task/";
			size_t l = strlen(path), k = strlen(e->name);
			if (l + k + 10 >= sizeof(path))
				continue;
			memcpy(path + l, e->name, k);
			memcpy(path + l + k, "/children", 10);
			int cf = open(path, O_RDONLY | O_CLOEXEC);
			if (cf < 0)
				continue;
			char list[4096];
			ssize_t got = read(cf, list, sizeof(list) - 1);
			close(cf);
			pid_t pid = 0;
			for (ssize_t i = 0; i < got; i++) {
				if (list[i] >= '0' && list[i] <= '9') {
					pid = pid * 10 + (list[i] - '0');
				} else if (pid > 0) {
					kill(pid, sig);
					pid = 0;
				}
			}
		}
	}
	close(td);
}
#endif

/* After the groups: a child that died before its own children (nvcc before its cc1, ccache
 * before nvcc) left them to us (cuwheel is a child subreaper): wait until no descendant is
 * left, forwarding sig to them once and SIGKILLing them after the grace period. */
static void os_descendants_reap(int sig)
{
	struct timespec step = {0, 20 * 1000 * 1000};
	for (int round = 0;; round++) {
		int st;
		pid_t r;
		while ((r = waitpid(-1, &st, WNOHANG)) > 0)
			;
		if (r < 0)
			return; /* ECHILD: none left */
#ifdef __linux__
		if (round == 0)
			os_signal_children(sig);
		if (round == OS_CHILD_GRACE_S * 50)
			os_signal_children(SIGKILL);
#endif
		if (round > OS_CHILD_GRACE_S * 50 + 250)
			return;
		nanosleep(&step, NULL);
	}
}

static void os_on_signal(int sig)
{
	int saved = errno;
	/* A closed reader of cuwheel's output (`cuwheel build | head -1`) stops the build as
	 * SIGTERM would: ninja, told SIGTERM, stops its jobs and removes their partial outputs. */
	int fwd = sig == SIGPIPE ? SIGTERM : sig;
	os_children_stop(fwd);
	os_descendants_reap(fwd);
	os_tmp_cleanup();
	signal(sig, SIG_DFL);
	raise(sig); /* pending until the handler returns (sig is blocked in it): then we die */
	errno = saved;
}

void os_std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* The lowest free descriptor: fd itself, as those below it are open by now. */
		int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got >= 0 && got != fd) {
			dup2(got, fd);
			close(got);
		}
	}
}

void os_install_signal_cleanup(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = os_on_signal;
	sigemptyset(&sa.sa_mask);
	/* One handler at a time: a second signal waits until the first has cleaned up. */
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaddset(&sa.sa_mask, SIGPIPE);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	signal(SIGXFSZ, SIG_IGN);
#ifdef __linux__
	/* Orphaned descendants come back to cuwheel, so the handler can wait for all of them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}
