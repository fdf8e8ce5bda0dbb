/* os-file-posix.c: files and directories (base/os-file.h, base/os-lock.h): reading, atomic writes
 * (temp file beside, fsync, rename), locks, directory trees, path queries. */
#include "base/os-file.h"
#include "base/os-lock.h"
#include "base/os-tmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/os-posix.h"

/* Reads fd to its end into src; more than max bytes is refused (what: for the message). */
static bool read_fd_max(struct arena *a, struct diag *d, int fd, const char *name, size_t max,
                        const char *what, struct source *src)
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
		if ((size_t)n > max - sb.len) {
			diag_path(d, DIAG_ERROR, name, "more than %zu bytes: over the limit for %s",
			          max, what);
			sb_release(&sb);
			return false;
		}
		sb_add(&sb, buf, (size_t)n);
	}
	src->path = arena_strdup(a, name);
	src->len = sb.len;
	src->text = sb_to_arena(&sb, a);
	return true;
}

bool os_read_fd(struct arena *a, struct diag *d, int fd, const char *name, struct source *src)
{
	return read_fd_max(a, d, fd, name, SIZE_MAX, "a file", src);
}

bool os_read_regular_fd(struct arena *a, struct diag *d, int fd, const char *name, size_t max,
                        const char *what, struct source *src)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_path(d, DIAG_ERROR, name, "not a regular file");
		return false;
	}
	if ((uint64_t)st.st_size > max) {
		diag_path(d, DIAG_ERROR, name, "%llu bytes is over the %zu-byte limit for %s",
		          (unsigned long long)st.st_size, max, what);
		return false;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return read_fd_max(a, d, fd, name, max, what, src);
}

bool os_read_file_max(struct arena *a, struct diag *d, const char *path, size_t max,
                      const char *what, struct source *src)
{
	/* O_NONBLOCK so that opening a FIFO cannot hang; only regular files are read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		diag_errno(d, path, "cannot open");
		return false;
	}
	bool ok = os_read_regular_fd(a, d, fd, path, max, what, src);
	close(fd);
	return ok;
}

bool os_read_file(struct arena *a, struct diag *d, const char *path, struct source *src)
{
	return os_read_file_max(a, d, path, SIZE_MAX, "a file", src);
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

/* Copies in (src) to out (dest), then sets out's mode; closes neither. */
static bool os_copy_fd(struct diag *d, const char *src, int in, const char *dest, int out,
                       mode_t mode)
{
	char buf[1 << 16];
	bool ok = true;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_errno(d, src, "cannot read");
			ok = false;
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				diag_errno(d, dest, "cannot write");
				ok = false;
				break;
			}
			off += w;
		}
		if (!ok)
			break;
	}
	if (fchmod(out, mode) != 0 && ok) {
		diag_errno(d, dest, "cannot set the mode of");
		ok = false;
	}
	return ok;
}

/* Opens src for a copy: a regular file; *mode gets 0755 when it is executable, else 0644. */
static int os_copy_open(struct diag *d, const char *src, mode_t *mode)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		diag_errno(d, src, "cannot open");
		return -1;
	}
	struct stat st;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_path(d, DIAG_ERROR, src, "is not a regular file");
		close(in);
		return -1;
	}
	*mode = (st.st_mode & 0111) ? 0755 : 0644;
	return in;
}

bool os_copy_file(struct diag *d, const char *src, const char *dest)
{
	mode_t mode;
	int in = os_copy_open(d, src, &mode);
	if (in < 0)
		return false;
	int out = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		diag_errno(d, dest, "cannot create");
		close(in);
		return false;
	}
	bool ok = os_copy_fd(d, src, in, dest, out, mode);
	if (close(out) != 0 && ok) {
		diag_errno(d, dest, "cannot close");
		ok = false;
	}
	close(in);
	return ok;
}

bool os_copy_file_atomic(struct arena *a, struct diag *d, const char *src, const char *dest)
{
	mode_t mode;
	int in = os_copy_open(d, src, &mode);
	if (in < 0)
		return false;
	char *tmp = NULL;
	int out = os_tmp_beside(a, d, dest, &tmp);
	bool ok = out >= 0 && os_copy_fd(d, src, in, dest, out, mode);
	close(in);
	if (out < 0)
		return false;
	if (!ok) {
		close(out);
		unlink(tmp);
		os_tmp_forget(tmp);
		return false;
	}
	return os_commit_tmp(d, out, tmp, dest);
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

void os_lock_set_holder(int fd)
{
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) < 0)
		(void)0; /* best effort: the holder's pid is only shown to a waiting build */
}

void os_lock_holder(int fd, char *buf, size_t n)
{
	ssize_t got = n > 1 ? pread(fd, buf, n - 1, 0) : -1;
	if (n > 0)
		buf[got > 0 ? (size_t)got : 0] = '\0';
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

static bool stat_fill(int rc, const struct stat *st, struct os_stat *out)
{
	if (rc != 0)
		return false;
	*out = (struct os_stat){
	    .kind = S_ISREG(st->st_mode)    ? OS_KIND_FILE
	            : S_ISDIR(st->st_mode)  ? OS_KIND_DIR
	            : S_ISLNK(st->st_mode)  ? OS_KIND_LINK
	            : S_ISFIFO(st->st_mode) ? OS_KIND_FIFO
	                                    : OS_KIND_OTHER,
	    .size = (uint64_t)st->st_size,
	    .mode = (unsigned)(st->st_mode & 07777),
	    .dev = (uint64_t)st->st_dev,
	    .ino = (uint64_t)st->st_ino,
	    .mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
	    .ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec,
	};
	return true;
}

bool os_stat(const char *path, struct os_stat *out)
{
	struct stat st;
	return stat_fill(stat(path, &st), &st, out);
}

bool os_lstat(const char *path, struct os_stat *out)
{
	struct stat st;
	return stat_fill(lstat(path, &st), &st, out);
}

bool os_unlink(const char *path)
{
	return unlink(path) == 0;
}

bool os_rename(const char *from, const char *to)
{
	return rename(from, to) == 0;
}

bool os_symlink(const char *target, const char *link)
{
	return symlink(target, link) == 0;
}

bool os_link(const char *from, const char *to)
{
	return link(from, to) == 0;
}

bool os_can_read(const char *path)
{
	return access(path, R_OK) == 0;
}

bool os_can_write(const char *path)
{
	return access(path, W_OK) == 0;
}

bool os_touch(const char *path)
{
	return utimensat(AT_FDCWD, path, NULL, 0) == 0;
}

bool os_chmod(const char *path, unsigned mode)
{
	return chmod(path, (mode_t)mode) == 0;
}

bool os_append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	return ok;
}

void os_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
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
