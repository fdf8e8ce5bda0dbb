/* beneath-posix.c: paths resolved inside a tree: openat2(RESOLVE_BENEATH) on Linux 5.6 and
 * later, and the same rule walked component by component where the kernel lacks it. */
#include "base/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "base/os-posix.h"
#include "base/strbuf.h"

enum { BENEATH_MAX_LINKS = 40 }; /* as the kernel's own limit */

/* Drops the last component of the resolved prefix ("a/b" -> "a", "a" -> ""). */
static void drop_last(struct strbuf *done)
{
	char *s = done->buf ? strrchr(done->buf, '/') : NULL;
	done->len = s ? (size_t)(s - done->buf) : 0;
	if (done->buf)
		done->buf[done->len] = '\0';
}

static int walk_fail(struct strbuf *done, struct strbuf *todo, int err)
{
	sb_release(done);
	sb_release(todo);
	errno = err;
	return -1;
}

int os_open_beneath_walk(int root_fd, const char *rel, int flags)
{
	if (rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	/* done: the components resolved so far, each a real directory (or the final file), never a
	 * link, so '..' is exact on it; todo: what is left, a link's target spliced in front. */
	struct strbuf done = {0}, todo = {0};
	sb_puts(&todo, rel);
	size_t pos = 0;
	int links = 0;
	char target[PATH_MAX];
	for (;;) {
		while (pos < todo.len && todo.buf[pos] == '/')
			pos++;
		if (pos >= todo.len)
			break;
		size_t end = pos;
		while (end < todo.len && todo.buf[end] != '/')
			end++;
		const char *comp = todo.buf + pos;
		size_t n = end - pos;
		if (n == 1 && comp[0] == '.') {
			pos = end;
			continue;
		}
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			if (done.len == 0)
				return walk_fail(&done, &todo, EXDEV);
			drop_last(&done);
			pos = end;
			continue;
		}
		size_t keep = done.len;
		if (done.len)
			sb_putc(&done, '/');
		sb_add(&done, comp, n);
		struct stat st;
		if (fstatat(root_fd, done.buf, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return walk_fail(&done, &todo, errno);
		if (S_ISLNK(st.st_mode)) {
			if (++links > BENEATH_MAX_LINKS)
				return walk_fail(&done, &todo, ELOOP);
			ssize_t k = readlinkat(root_fd, done.buf, target, sizeof(target));
			if (k < 0)
				return walk_fail(&done, &todo, errno);
			if ((size_t)k >= sizeof(target))
				return walk_fail(&done, &todo, ENAMETOOLONG);
			if (k == 0 || target[0] == '/')
				return walk_fail(&done, &todo, k ? EXDEV : ENOENT);
			/* The target replaces the link, relative to the link's directory. */
			done.len = keep;
			done.buf[keep] = '\0';
			struct strbuf next = {0};
			sb_add(&next, target, (size_t)k);
			sb_putc(&next, '/');
			sb_add(&next, todo.buf + end, todo.len - end);
			sb_release(&todo);
			todo = next;
			pos = 0;
			continue;
		}
		pos = end;
		size_t more = pos;
		while (more < todo.len && todo.buf[more] == '/')
			more++;
		if (more < todo.len && !S_ISDIR(st.st_mode))
			return walk_fail(&done, &todo, ENOTDIR);
	}
	int fd = openat(root_fd, done.len ? done.buf : ".", flags | O_NOFOLLOW | O_CLOEXEC);
	int err = errno;
	sb_release(&done);
	sb_release(&todo);
	errno = err;
	return fd;
}

int os_open_beneath(int root_fd, const char *rel, int flags)
{
	if (!rel[0])
		rel = ".";
#if defined(__linux__) && defined(SYS_openat2)
	struct open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
	                       .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	for (int tries = 0; tries < 8; tries++) {
		long fd = syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno == EAGAIN || errno == EINTR)
			continue; /* a rename raced the walk: the kernel asks to retry */
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		break; /* no openat2 here (an older kernel, or a seccomp filter) */
	}
#endif
	return os_open_beneath_walk(root_fd, rel, flags);
}

static bool read_fail(struct diag *d, const struct beneath_read *r, const char *why)
{
	diag_path(d, DIAG_ERROR, r->shown, "%s", why);
	return false;
}

bool os_read_beneath(struct arena *a, struct diag *d, const struct beneath_read *r,
                     struct source *src)
{
	int root = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		diag_errno(d, r->root, "cannot open the tree");
		return false;
	}
	/* O_NONBLOCK: a FIFO is opened without waiting for a writer, then refused. */
	int fd = os_open_beneath(root, r->rel, O_RDONLY | O_NONBLOCK);
	int err = errno;
	close(root);
	if (fd < 0) {
		if (err == EXDEV)
			return read_fail(d, r,
			                 "it leads outside the unpacked tree (through a symlink, "
			                 "followed one component at a time)");
		if (err == ELOOP)
			return read_fail(d, r, "too many levels of symbolic links (a loop)");
		errno = err;
		diag_errno(d, r->shown, "cannot read");
		return false;
	}
	bool ok = os_read_regular_fd(a, d, fd, r->shown, r->max, r->what, src);
	close(fd);
	return ok;
}
