/* build_run.h: runs ninja for `cuwheel build` and shows its progress per archive and per cell. */
#ifndef CUWHEEL_CLI_BUILD_RUN_H
#define CUWHEEL_CLI_BUILD_RUN_H

#include "cli/cli.h"
#include "report/build_result.h"
#include "graph/buildgraph.h"

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

/* Runs ninja (argv, with env added) for the rows of m that it was asked for, showing their
 * progress in mode, and keeps each row's state and times in m; *status gets ninja's exit status.
 * Returns false + diagnostic only when ninja could not be run. */
bool build_run_ninja(struct cli *c, const struct plan *p, struct build_result *m,
                     const char *const *argv, const char *const *env, enum build_progress mode,
                     int *status);
/* Under GitHub Actions ($GITHUB_STEP_SUMMARY set): appends the shown rows of m as a Markdown
 * table to the step summary; does nothing elsewhere. */
void build_gha_summary(struct cli *c, const struct build_result *m);

#endif
