/* ninja_log.h: what ninja knows about a build dir: the one reader of its .ninja_log (the timings
 * of the steps it ran, for the build summary, the progress ETA and the report) and the one
 * "is this target up to date" question. */
#ifndef CUWHEEL_CLI_NINJA_LOG_H
#define CUWHEEL_CLI_NINJA_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"

/* One step: when it ran (ms from the start of its ninja run) and what it wrote. */
struct ninja_log_entry {
	long long start_ms, end_ms;
	const char *output; /* build-dir relative */
};

enum ninja_log_view {
	NINJA_LOG_LATEST,   /* the latest entry of every output, in file order */
	NINJA_LOG_LAST_RUN, /* the entries of the last ninja run only */
};

/* Reads build_dir/.ninja_log into *out (arena memory). A missing log is an empty one. Returns
 * false + diagnostic when the file is there but cannot be read (*out is then empty). */
bool ninja_log_read(struct arena *a, struct diag *d, const char *build_dir,
                    enum ninja_log_view view, struct ninja_log_entry **out, size_t *n);
/* Reads the entries of the lines .ninja_log gained after byte `from` (its size before a run):
 * what that run did, in file order. A log shorter than `from` was rewritten by ninja (it
 * recompacts it): all of it is then the run's. False + diagnostic as ninja_log_read. */
bool ninja_log_read_since(struct arena *a, struct diag *d, const char *build_dir, size_t from,
                          struct ninja_log_entry **out, size_t *n);
/* True when `ninja -C build_dir -n target` has no work to do (the target is up to date); false
 * when it has, or when ninja cannot be asked. */
bool ninja_target_clean(const char *ninja, const char *build_dir, const char *target);

#endif
