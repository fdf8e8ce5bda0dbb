/* build_run.h: runs ninja for `cuwheel build` and shows its progress per archive and per cell. */
#ifndef CUWHEEL_CLI_BUILD_RUN_H
#define CUWHEEL_CLI_BUILD_RUN_H

#include "cli/cli.h"
#include "matrix/buildgraph.h"

/* How progress is shown: auto picks tty when stdout is a terminal and neither NO_COLOR nor CI
 * is set; plain appends one line per step start and finish (GitHub Actions adds groups,
 * annotations and the step summary to plain). */
enum build_progress {
	BUILD_PROGRESS_AUTO,
	BUILD_PROGRESS_TTY,
	BUILD_PROGRESS_PLAIN,
};

/* Parses "auto", "tty" or "plain" into *out; false when text is none of them. */
bool build_progress_parse(const char *text, enum build_progress *out);

/* Runs ninja (argv, with env added) for the graph's cells with automatic progress; *status gets
 * ninja's exit status. Returns false + diagnostic only when ninja could not be run. */
bool build_run_ninja(struct cli *c, const struct plan *p, const struct build_graph *g,
                     const char *const *argv, const char *const *env, int *status);
/* Same, with the progress mode chosen by the caller (--progress). */
bool build_run_ninja_mode(struct cli *c, const struct plan *p, const struct build_graph *g,
                          const char *const *argv, const char *const *env, enum build_progress mode,
                          int *status);

#endif
