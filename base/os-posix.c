/* os-posix.c: the POSIX implementation of os.h. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addchdir_np */
#include "base/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
 * This is the one piece of mutable global state, and it exists for the handler alone. */
enum { OS_TMP_MAX = 64, OS_TMP_PATH = 4096 };
static char os_tmp_paths[OS_TMP_MAX][OS_TMP_PATH];
static volatile sig_atomic_t os_tmp_used[OS_TMP_MAX];

void os_tmp_register(const char *path)
{
	for (int i = 0; i < OS_TMP_MAX; i++) {
		if (!os_tmp_used[i]) {
			snprintf(os_tmp_paths[i], OS_TMP_PATH, "%s", path);
			os_tmp_used[i] = 1;
			return;
		}
	}
}

void os_tmp_forget(const char *path)
{
	for (int i = 0; i < OS_TMP_MAX; i++)
		if (os_tmp_used[i] && strcmp(os_tmp_paths[i], path) == 0)
			os_tmp_used[i] = 0;
}

void os_tmp_cleanup(void)
{
	for (int i = 0; i < OS_TMP_MAX; i++) {
		if (os_tmp_used[i]) {
			unlink(os_tmp_paths[i]);
			os_tmp_used[i] = 0;
		}
	}
}

static void os_on_signal(int sig)
{
	os_tmp_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void os_install_signal_cleanup(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = os_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* What a non-regular file is, for the refusal. */
static const char *os_kind_of(mode_t m)
{
	return S_ISLNK(m)    ? "a symbolic link"
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
		diag_path(d, DIAG_ERROR, path,
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
		diag_path(d, DIAG_ERROR, path,
		          "refusing to write: it is %s, not a directory", os_kind_of(st.st_mode));
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
		path = arena_printf(a, "%.*s/.%s.tmp.XXXXXX", (int)(slash - final), final, slash + 1);
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
	if (!os_is_dir(buf)) {
		diag_path(d, DIAG_ERROR, buf, "exists and is not a directory");
		return false;
	}
	return true;
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

char *os_which(struct arena *a, const char *name)
{
	if (strchr(name, '/'))
		return os_is_exec(name) ? arena_strdup(a, name) : NULL;
	const char *path = getenv("PATH");
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
	int rc = posix_spawnp(&pid, r->argv[0], &fa, NULL, (char *const *)r->argv, env);
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
	if (r->capture) {
		char buf[8192];
		for (;;) {
			ssize_t n = read(pipefd[0], buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (out)
				sb_add(out, buf, (size_t)n);
		}
		close(pipefd[0]);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			diag_errno(d, r->argv[0], "cannot wait for");
			arena_free(&a);
			return false;
		}
	}
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	arena_free(&a);
	return true;
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
