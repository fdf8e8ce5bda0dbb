/* testcmd.h: the placeholders of [tool.cuwheel.test] command. {project} and {wheel} become
 * "$CUWHEEL_PROJECT" and "$CUWHEEL_WHEEL", variables the command's environment holds, so a path
 * is never text the shell parses: it stays one argument whatever it holds ($(...), quotes,
 * spaces). A placeholder is accepted only where that substitution keeps this meaning: unquoted
 * in a command (also inside $(...)), never inside '...', "...", `...`, ${...}, $((...)), after
 * a backslash, or in a command with a here-document. */
#ifndef CUWHEEL_MATRIX_TESTCMD_H
#define CUWHEEL_MATRIX_TESTCMD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* The environment variables the placeholders stand for. */
#define TESTCMD_PROJECT_VAR "CUWHEEL_PROJECT"
#define TESTCMD_WHEEL_VAR   "CUWHEEL_WHEEL"

/* Returns command with each placeholder replaced by its quoted variable reference (command
 * itself when it holds none). NULL when a placeholder stands where the shell would not read the
 * substitution as one plain argument: *why says where (naming the placeholder and its context)
 * and *at gets its byte offset in command. */
char *testcmd_expand(struct arena *a, const char *command, const char **why, size_t *at);

#endif
