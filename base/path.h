/* path.h: '/'-separated path arithmetic on strings, without asking the file system. */
#ifndef CUWHEEL_BASE_PATH_H
#define CUWHEEL_BASE_PATH_H

#include "base/arena.h"

/* Returns the relative path from directory `from` to `to` (both absolute, normalised): "..",
 * "a/b", "../../q/r", or "." when they are the same. */
char *path_relative(struct arena *a, const char *from, const char *to);

/* Iterates over the '/'-separated components of a path: returns the next one's start, its
 * length in *len, and advances *p past it and its '/'; NULL at the end. "a//b/" gives "a", ""
 * and "b". */
const char *path_next(const char **p, size_t *len);

/* Returns rel as a compiler run in the build dir names it, where dir is the project as seen from
 * there: rel itself when it is absolute or dir is ".", else dir/rel. */
const char *path_under(struct arena *a, const char *dir, const char *rel);

#endif
