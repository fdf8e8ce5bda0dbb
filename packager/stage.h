/* stage.h: lays out the tree a wheel is packed from: the pure-Python packages and the
 * extension modules at their import paths. */
#ifndef CUWHEEL_PACKAGER_STAGE_H
#define CUWHEEL_PACKAGER_STAGE_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"

struct stage_file {
	const char *src;  /* file to copy */
	const char *dest; /* path inside the staged tree, '/'-separated */
};

/* Recreates out_dir holding each package directory (by its basename; __pycache__, *.pyc and,
 * unless hidden, dot files left out) and each extra file. Package paths are relative to
 * project_dir. A package or file whose name at the wheel's root cannot be staged (a *.data or
 * *.dist-info name, '', '.', '..') is an error before anything is written. False + diagnostic
 * on error; a failed stage leaves no half tree behind. */
bool stage_tree(struct arena *a, struct diag *d, const char *project_dir, const char *out_dir,
                const struct strv *packages, bool hidden, const struct stage_file *files,
                size_t n_files);
/* What staging the package directory rel (project-relative) would refuse, found without
 * copying: a symbolic link, a file that is not regular or cannot be read, a tree over 64
 * levels; the message (naming the entry, escaped), or NULL when it would stage. */
const char *stage_package_problem(struct arena *a, const char *project_dir, const char *rel,
                                  bool hidden);

#endif
