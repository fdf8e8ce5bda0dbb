/* build_run.h: runs ninja for `cuwheel build` and shows its progress. */
#ifndef CUWHEEL_CLI_BUILD_RUN_H
#define CUWHEEL_CLI_BUILD_RUN_H

#include "cli/cli.h"
#include "matrix/buildgraph.h"

/* Runs ninja (argv, with env added) for the graph's cells; *status gets ninja's exit status.
 * Returns false + diagnostic only when ninja could not be run. */
bool build_run_ninja(struct cli *c, const struct plan *p, const struct build_graph *g,
		     const char *const *argv, const char *const *env, int *status);

#endif
