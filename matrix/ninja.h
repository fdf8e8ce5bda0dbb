/* ninja.h: writing build.ninja text with correct escaping: paths in build lines ($ , $:, $$)
 * and shell-quoted arguments in commands. */
#ifndef CUWHEEL_MATRIX_NINJA_H
#define CUWHEEL_MATRIX_NINJA_H

#include <stdbool.h>

#include "base/strbuf.h"

/* Appends a path as it must appear in a build line (spaces, ':' and '$' escaped). */
void ninja_path(struct strbuf *sb, const char *path);
/* Appends one command argument: shell-quoted when needed, then '$' escaped for ninja. */
void ninja_arg(struct strbuf *sb, const char *arg);
/* Appends a space and each argument of a NULL-terminated list via ninja_arg. */
void ninja_args(struct strbuf *sb, const char *const *argv);
/* Appends a space and each path of a list via ninja_path (the inputs of a build line). */
struct strv;
void ninja_paths(struct strbuf *sb, const struct strv *paths);
/* True when a path can be written to build.ninja at all (no newline or NUL). */
bool ninja_path_ok(const char *path);

#endif
