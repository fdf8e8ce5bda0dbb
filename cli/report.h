/* report.h: what a build did, gathered from the build dir (report.json, .ninja_log, the wheels'
 * audits, the plan) and written as a self-contained HTML page, JSON and a Chrome trace. */
#ifndef CUWHEEL_CLI_REPORT_H
#define CUWHEEL_CLI_REPORT_H

#include <jansson.h>

#include "cli/plan_common.h"
#include "packager/audit.h"

/* One step ninja ran in the last build, from .ninja_log; times in ms from the build's start. */
struct report_step {
	const char *name;   /* "nvcc kernels/raster.cu", "link", "pack" */
	const char *row;    /* cell id, or "kernels CUDA 13.0" */
	const char *output; /* build-dir relative */
	bool kernels;       /* the kernel-archive stage (else a per-Python cell step) */
	long long start_ms, end_ms;
	int lane; /* the core it ran on, assigned greedily */
};

struct report_cell {
	const struct cell *cell; /* from the plan; NULL when the plan no longer has it */
	const char *id, *result, *reason, *wheel; /* as report.json says; wheel: a path or NULL */
	long long size;
	double seconds; /* < 0: report.json says null (up to date: nothing ran for it) */
	bool audited;
	struct audit_result audit;
};

struct report {
	const char *project, *version, *build_dir;
	double wall_seconds;
	struct report_cell *cells;
	size_t n_cells;
	json_t *archives; /* report.json's "archives", borrowed from root */
	struct report_step *steps;
	size_t n_steps;
	int n_lanes;
	long long span_ms;
	const char *cc_version;
	json_t *root; /* report.json, owned */
};

/* Gathers the last build of pc's build dir. False + diagnostic when it has no report.json. */
bool report_load(struct cli *c, const struct plan_ctx *pc, struct report *r);
/* Gathers a build from report.json's document root (owned by r from now on) with the audits
 * `internal finish` kept in it, the last run in .ninja_log and the toolchain. */
void report_from(struct cli *c, const struct plan_ctx *pc, json_t *root, struct report *r);
/* Returns the report as JSON (format 1); the caller frees it with json_decref. */
json_t *report_json(const struct plan_ctx *pc, const struct report *r);
/* Returns the steps as Chrome trace events ({"traceEvents": [...]}); json_decref it. */
json_t *report_trace(const struct report *r);
/* Renders the self-contained HTML page (grid, timeline, audits, toolchain) into the arena. */
char *report_html(struct arena *a, const struct plan_ctx *pc, const struct report *r);
/* Frees what report_load allocated outside the arena. */
void report_free(struct report *r);
/* Writes report.html, report-data.json and report-trace.json into out_dir (the build dir when
 * NULL) from doc (report.json's document, owned from now on; NULL: read report.json) and names
 * the HTML on stdout. Returns CLI_OK or CLI_FAIL (+ diagnostic). */
int report_write(struct cli *c, const struct plan_ctx *pc, json_t *doc, const char *out_dir);

#endif
