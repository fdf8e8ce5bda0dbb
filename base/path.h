/* path.h: '/'-separated path arithmetic on strings, without asking the file system. */
#ifndef CUWHEEL_BASE_PATH_H
#define CUWHEEL_BASE_PATH_H

#include "base/arena.h"

/* Returns the relative path from directory `from` to `to` (both absolute, normalised): "..",
 * "a/b", "../../q/r", or "." when they are the same. */
char *path_relative(struct arena *a, const char *from, const char *to);

#endif
