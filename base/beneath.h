/* beneath.h: opening and reading a path inside a directory tree so that no component, symlinks
 * followed one at a time included, ever leaves it (the rule openat2's RESOLVE_BENEATH applies). */
#ifndef CUWHEEL_BASE_BENEATH_H
#define CUWHEEL_BASE_BENEATH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"

/* Opens rel (relative to the directory open as root_fd) with flags (O_RDONLY, O_PATH, ...;
 * O_CLOEXEC is added), following symlinks only while every step stays beneath root_fd:
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the kernel has it, else the same walk
 * component by component. Returns the fd, or -1 with errno: EXDEV when the path or one of its
 * links leads outside (an absolute target, or '..' above the root), ELOOP after 40 links,
 * ENOENT / ENOTDIR as open does. */
int os_open_beneath(int root_fd, const char *rel, int flags);
/* The component walk os_open_beneath falls back to (exposed so that tests compare it with
 * openat2 on the same trees). Same contract. */
int os_open_beneath_walk(int root_fd, const char *rel, int flags);

/* What os_read_beneath reads: at most max bytes of one regular file. */
struct beneath_read {
	const char *root;  /* the tree (a directory) */
	const char *rel;   /* the file, relative to root */
	const char *shown; /* its name for messages ("x.tar.gz!x-1/PKG-INFO") */
	size_t max;        /* the limit, in bytes */
	const char *what;  /* what it is, for the limit's message ("PKG-INFO") */
};

/* Reads r->rel into src (NUL-terminated, src->path = r->shown), resolved beneath r->root.
 * Returns false after one diagnostic naming r->shown when the path leads outside the tree, is
 * not a regular file, cannot be read, or holds more than r->max bytes (checked while reading,
 * so nothing over the limit is ever held). */
bool os_read_beneath(struct arena *a, struct diag *d, const struct beneath_read *r,
                     struct source *src);

#endif
