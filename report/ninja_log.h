/* ninja_log.h: what ninja knows about a build dir: the one reader of its .ninja_log (the timings
 * of the steps it ran, for the build summary, the progress ETA and the report) and the one
 * "is this target up to date" question. */
#ifndef CUWHEEL_REPORT_NINJA_LOG_H
#define CUWHEEL_REPORT_NINJA_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"

/* One step: when it ran (ms from the start of its ninja run) and what it wrote. */
struct ninja_log_entry {
	long long start_ms, end_ms;
	const char *output; /* build-dir relative */
	size_t at;          /* the byte offset of its line in the log */
};

enum ninja_log_view {
	NINJA_LOG_LATEST,   /* the latest entry of every output, in file order */
	NINJA_LOG_LAST_RUN, /* the entries of the last ninja run only */
};

/* Where the log stood before a run: its size and inode (0, 0: no log). ninja appends a run's
 * entries, or rewrites (recompacts) the whole file under a new inode. */
struct ninja_log_mark {
	unsigned long long size, inode;
};

/* The log, read once: every entry in file order. */
struct ninja_log {
	struct ninja_log_entry *v;
	size_t n;
	size_t run_start;         /* where the last run begins: end times fall back there */
	unsigned long long inode; /* of the file read; 0 when there was none */
};

/* Returns where build_dir/.ninja_log stands now (before a run); never fails. */
struct ninja_log_mark ninja_log_mark(struct arena *a, const char *build_dir);
/* Reads build_dir/.ninja_log (arena memory). A missing log is an empty one. Returns false +
 * diagnostic when the file is there but cannot be read (*log is then empty). */
bool ninja_log_load(struct arena *a, struct diag *d, const char *build_dir, struct ninja_log *log);
/* Returns one view of the log in *out (arena memory; the log is not changed) and its size. */
size_t ninja_log_view(struct arena *a, const struct ninja_log *log, enum ninja_log_view view,
                      struct ninja_log_entry **out);
/* Returns in *out the entries the run that began at mark `before` appended, and their number:
 * those after its size; all of the last run when ninja rewrote the log meanwhile. */
size_t ninja_log_run(const struct ninja_log *log, const struct ninja_log_mark *before,
                     struct ninja_log_entry **out);
/* True when `ninja -C build_dir -n target` has no work to do (the target is up to date); false
 * when it has, or when ninja cannot be asked. */
bool ninja_target_clean(const char *ninja, const char *build_dir, const char *target);

#endif
