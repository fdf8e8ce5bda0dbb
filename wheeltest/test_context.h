/* test_context.h: what `internal test-cell` needs from the configuration and discovery (the test
 * command and requirements, the matrix's Pythons and the interpreters found), written once by
 * `cuwheel build` into the build dir so that no ninja step reads pyproject.toml or probes the
 * machine again. */
#ifndef CUWHEEL_WHEELTEST_TEST_CONTEXT_H
#define CUWHEEL_WHEELTEST_TEST_CONTEXT_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/config.h"
#include "toolchain/discover.h"

/* Returns the context of cfg and ds as JSON text (format 1) in the arena. */
char *test_context_render(struct arena *a, const struct config *cfg, const struct discovery *ds);
/* Reads a context file into the fields of *cfg (project_dir, test, matrix.python) and *ds
 * (pythons) that wheel testing uses; the rest is zero. False + diagnostic naming the file. */
bool test_context_read(struct arena *a, struct diag *d, const char *path, struct config *cfg,
                       struct discovery *ds);

#endif
