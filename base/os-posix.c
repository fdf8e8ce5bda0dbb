/* os-posix.c: the POSIX implementation of os.h. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addchdir_np, posix_openpt, cfmakeraw */
#include "base/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <poll.h>
#include <sys/ioctl.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"

extern char **environ;

bool os_read_fd(struct arena *a, struct diag *d, int fd, const char *name, struct source *src)
{
	struct strbuf sb = {0};
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			diag_errno(d, name, "cannot read");
			sb_release(&sb);
			return false;
		}
		if (n == 0)
			break;
		sb_add(&sb, buf, (size_t)n);
	}
	src->path = arena_strdup(a, name);
	src->len = sb.len;
	src->text = sb_to_arena(&sb, a);
	return true;
}

bool os_read_file(struct arena *a, struct diag *d, const char *path, struct source *src)
{
	/* O_NONBLOCK so that opening a FIFO cannot hang; only regular files are read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		diag_errno(d, path, "cannot open");
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_path(d, DIAG_ERROR, path, "not a regular file");
		close(fd);
		return false;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	bool ok = os_read_fd(a, d, fd, path, src);
	close(fd);
	return ok;
}

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
static void os_tmp_register(const char *path)
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

static void os_child_register(pid_t pid)
{
	for (int i = 0; i < OS_CHILD_MAX; i++) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&os_child_pids[i], &expect, (int)pid))
			return;
	}
}

static void os_child_forget(pid_t pid)
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
static int os_spawn_registered(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
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
static pid_t os_reap(pid_t pid, int *ws, bool block)
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

/* What a non-regular file is, for the refusal. */
static const char *os_kind_of(mode_t m)
{
	return S_ISREG(m)    ? "a regular file"
	       : S_ISLNK(m)  ? "a symbolic link"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	                     : "not a regular file";
}

bool os_output_check(struct diag *d, const char *path, enum os_output kind)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return true;
		diag_errno(d, path, "cannot check the output path");
		return false;
	}
	if (kind == OS_OUT_FILE && !S_ISREG(st.st_mode)) {
		diag_path(
		    d, DIAG_ERROR, path,
		    "refusing to write: it is %s (cuwheel writes regular files only, and never "
		    "replaces or writes through a link)",
		    os_kind_of(st.st_mode));
		return false;
	}
	if (kind == OS_OUT_TREE && !S_ISDIR(st.st_mode)) {
		diag_path(d, DIAG_ERROR, path,
		          "refusing to write: it is %s (a directory replaced as a whole must be a "
		          "real directory, never a link)",
		          os_kind_of(st.st_mode));
		return false;
	}
	if (kind == OS_OUT_DIR && !S_ISDIR(st.st_mode) &&
	    (!S_ISLNK(st.st_mode) || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
		diag_path(d, DIAG_ERROR, path, "refusing to write: it is %s, not a directory",
		          os_kind_of(st.st_mode));
		return false;
	}
	return true;
}

/* path resolved as far as it exists, the rest appended as written (an output dir may not
 * exist yet); NULL when no prefix resolves. */
static char *os_resolve_partial(struct arena *a, const char *path)
{
	char *abs = os_abspath(a, path);
	char *rp = os_realpath(a, abs);
	if (rp)
		return rp;
	char *slash = strrchr(abs, '/');
	if (!slash || slash == abs)
		return NULL;
	char *head = os_resolve_partial(a, arena_strndup(a, abs, (size_t)(slash - abs)));
	if (!head || !strcmp(slash + 1, ".") || !strcmp(slash + 1, ".."))
		return NULL;
	return os_join(a, head, slash + 1);
}

bool os_path_inside(struct arena *a, const char *path, const char *dir)
{
	char *rp = os_resolve_partial(a, path), *rd = os_realpath(a, dir);
	if (!rp || !rd)
		return false;
	size_t n = strlen(rd);
	if (n == 1) /* "/" */
		return true;
	return !strncmp(rp, rd, n) && (rp[n] == '/' || rp[n] == '\0');
}

int os_tmp_beside(struct arena *a, struct diag *d, const char *final, char **tmp_path)
{
	if (!os_output_check(d, final, OS_OUT_FILE))
		return -1;
	const char *slash = strrchr(final, '/');
	char *path;
	if (slash)
		path =
		    arena_printf(a, "%.*s/.%s.tmp.XXXXXX", (int)(slash - final), final, slash + 1);
	else
		path = arena_printf(a, ".%s.tmp.XXXXXX", final);
	/* Block signals between creation and registration so no temp file can escape cleanup. */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int fd = mkstemp(path);
	if (fd >= 0)
		os_tmp_register(path);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		diag_errno(d, final, "cannot create a temporary file beside");
		return -1;
	}
	*tmp_path = path;
	return fd;
}

bool os_commit_tmp(struct diag *d, int fd, const char *tmp, const char *final)
{
	bool ok = true;
	if (fd >= 0) {
		if (fsync(fd) != 0 && errno != EINVAL) {
			diag_errno(d, final, "cannot sync");
			ok = false;
		}
		if (close(fd) != 0 && ok) {
			diag_errno(d, final, "cannot close");
			ok = false;
		}
	}
	/* Again just before the rename: the path may have changed while the file was written. */
	if (ok && !os_output_check(d, final, OS_OUT_FILE))
		ok = false;
	if (ok && rename(tmp, final) != 0) {
		diag_errno(d, final, "cannot rename into place");
		ok = false;
	}
	if (!ok)
		unlink(tmp);
	os_tmp_forget(tmp);
	return ok;
}

bool os_write_if_changed(struct arena *a, struct diag *d, const char *path, const void *data,
                         size_t len, mode_t mode)
{
	struct source old;
	struct diag quiet = {0}; /* a probe: no old file is no error */
	if (os_read_file(a, &quiet, path, &old) && old.len == len && !memcmp(old.text, data, len))
		return true;
	return os_write_atomic(d, path, data, len, mode);
}

bool os_write_atomic(struct diag *d, const char *path, const void *data, size_t len, mode_t mode)
{
	struct arena a = {0};
	char *tmp;
	int fd = os_tmp_beside(&a, d, path, &tmp);
	if (fd < 0) {
		arena_free(&a);
		return false;
	}
	const char *p = data;
	size_t left = len;
	bool ok = true;
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			diag_errno(d, path, "cannot write");
			ok = false;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	if (ok && fchmod(fd, mode) != 0) {
		diag_errno(d, path, "cannot set the mode of");
		ok = false;
	}
	if (!ok) {
		close(fd);
		unlink(tmp);
		os_tmp_forget(tmp);
	} else {
		ok = os_commit_tmp(d, fd, tmp, path);
	}
	arena_free(&a);
	return ok;
}

int os_lock_open(struct diag *d, const char *path, bool inherit)
{
	int fd = open(path, O_RDWR | O_CREAT | (inherit ? 0 : O_CLOEXEC), 0644);
	if (fd < 0)
		diag_errno(d, path, "cannot open the lock file");
	return fd;
}

bool os_lock_try(int fd)
{
	return flock(fd, LOCK_EX | LOCK_NB) == 0;
}

bool os_lock_wait(struct diag *d, int fd, const char *path)
{
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			diag_errno(d, path, "cannot lock");
			return false;
		}
	}
	return true;
}

bool os_mkdir_p(struct diag *d, const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(buf)) {
		diag_path(d, DIAG_ERROR, path, "invalid directory path");
		return false;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
			diag_errno(d, buf, "cannot create directory");
			return false;
		}
		*p = '/';
	}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
		diag_errno(d, buf, "cannot create directory");
		return false;
	}
	return os_output_check(d, buf, OS_OUT_DIR); /* the output rule for a dir written into */
}

bool os_rm_rf(struct diag *d, const char *path)
{
	if (!path[0] || strcmp(path, "/") == 0) {
		diag_path(d, DIAG_ERROR, path, "refusing to remove");
		return false;
	}
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? true : (diag_errno(d, path, "cannot stat"), false);
	if (S_ISDIR(st.st_mode)) {
		DIR *dir = opendir(path);
		if (!dir) {
			diag_errno(d, path, "cannot open directory");
			return false;
		}
		struct dirent *e;
		bool ok = true;
		struct arena a = {0};
		while (ok && (e = readdir(dir))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			ok = os_rm_rf(d, os_join(&a, path, e->d_name));
		}
		closedir(dir);
		arena_free(&a);
		if (ok && rmdir(path) != 0) {
			diag_errno(d, path, "cannot remove directory");
			ok = false;
		}
		return ok;
	}
	if (unlink(path) != 0) {
		diag_errno(d, path, "cannot remove");
		return false;
	}
	return true;
}

bool os_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

bool os_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool os_is_exec(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int64_t os_mtime_ns(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

char *os_realpath(struct arena *a, const char *path)
{
	char buf[PATH_MAX];
	if (!realpath(path, buf))
		return NULL;
	return arena_strdup(a, buf);
}

char *os_abspath(struct arena *a, const char *path)
{
	if (path[0] == '/')
		return arena_strdup(a, path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return arena_strdup(a, path);
	if (strcmp(path, ".") == 0)
		return arena_strdup(a, cwd);
	return os_join(a, cwd, path);
}

char *os_join(struct arena *a, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return arena_printf(a, "%s%s", dir, name);
	return arena_printf(a, "%s/%s", dir, name);
}

static int os_cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

bool os_list_dir(struct arena *a, const char *dir, struct strv *out)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return false;
	struct dirent *e;
	size_t first = out->n;
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strv_push(a, out, arena_strdup(a, e->d_name));
	}
	closedir(dp);
	if (out->n > first)
		qsort(out->v + first, out->n - first, sizeof(*out->v), os_cmp_str);
	return true;
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
	char **env = r->env ? os_make_env(&a, r->env) : environ;
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
	char **env = r->env ? os_make_env(&a, r->env) : environ;
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

void os_proc_kill(struct os_proc *p)
{
	if (p->pid > 0)
		kill(-p->pid, SIGKILL); /* its own process group (os_spawn_attrs) */
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
