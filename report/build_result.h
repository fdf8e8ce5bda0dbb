/* build_result.h: one build's outcome, its one model: a row per kernel archive and per cell,
 * the steps ninja ran and the toolchain the build used. `cuwheel build` fills it from the plan,
 * the live ninja stream, one read of .ninja_log and the cells' audit.json; report.json is the
 * model written down (docs/manual/report.md); the summary, the progress view, the HTML page,
 * the trace and `cuwheel report` all render from it. */
#ifndef CUWHEEL_REPORT_BUILD_RESULT_H
#define CUWHEEL_REPORT_BUILD_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "report/ninja_log.h"
#include "graph/buildgraph.h"
#include "wheeltest/torch_compat.h"
#include "packager/audit.h"

/* The format report.json is written in; a document of another format is not read. */
#define RESULT_FORMAT 2

enum result_state {
	RESULT_WAITING,
	RESULT_RUNNING,
	RESULT_OK,
	RESULT_FAILED,
	RESULT_BLOCKED,      /* its kernel archive failed */
	RESULT_NOT_BUILT,    /* ninja stopped before it */
	RESULT_CANNOT_BUILD, /* selected, but this machine cannot build it */
	RESULT_NOT_SELECTED,
};

struct result_row {
	const char *name; /* cell id, or "kernels CUDA 13.0" */
	bool is_archive;
	enum result_state state;
	const char *step;    /* the step running, or the one that failed; NULL */
	const char *reason;  /* RESULT_CANNOT_BUILD, RESULT_NOT_SELECTED: why; else NULL */
	const char *cuda;    /* "13.0" */
	double seconds;      /* wall time of its steps in this build (their union); -1: none ran */
	double work_seconds; /* what its outputs' steps took when each last ran (a sum) */
	size_t work_steps;   /* how many steps that is */
	/* archives */
	const char *archive, *key, *nvcc;
	size_t objects;
	/* cells */
	const char *python, *torch, *interpreter; /* "3.12", "2.11" or NULL, its path */
	const char *wheel;                        /* the wheel placed in dist/, or NULL */
	long long size;
	bool audited;
	struct audit_result audit;   /* the audit `internal finish` kept (cells/<id>/audit.json) */
	bool compat_done;            /* torch-compat ran for it: */
	struct compat_result compat; /* its table (cells/<id>/compat.json) */
	/* While building (not in report.json): */
	double t_start, t_end;      /* seconds on ninja's clock (its %e); -1: not yet */
	bool shown;                 /* ninja was asked for it: the progress view has it */
	size_t archive_row;         /* cells: their kernel archive's row; SIZE_MAX: none */
	const char *prefix;         /* "cells/<id>/", "kernels/cu130-<key>/": its outputs */
	const char *last_step;      /* the step whose end means the row is done */
	const char *final, *target; /* the cell's placed-wheel stamp; what ninja builds */
	const char *packed;         /* the cell's wheel before the audit (build-dir relative) */
	double expected;            /* work_seconds of the previous build, for the ETA */
	size_t n_expected;          /* its work_steps */
};

/* One step ninja ran in this build, from .ninja_log; times in ms on ninja's clock. */
struct result_step {
	const char *name;   /* "nvcc kernels/raster.cu", "ar", "cc binding", "link", "pack" */
	const char *row;    /* its row's name; "other" for none */
	const char *output; /* build-dir relative */
	bool kernels;       /* under kernels/ (else a per-Python cell's or shared step) */
	long long start_ms, end_ms;
	int lane; /* the core it ran on, assigned greedily */
};

/* A CUDA toolkit the build used, with the host compiler its kernels and bindings used. */
struct result_toolkit {
	const char *cuda, *version, *nvcc;
	const char *cc, *cxx, *cc_version; /* cc_version NULL when unknown */
};

/* A Python the build used (the interpreter that built a cell). */
struct result_python {
	const char *version, *path;
	const char *torch; /* its torch's version when a cell of it builds against torch */
};

struct build_result {
	const char *project, *version, *build_dir, *dist_dir;
	double wall_seconds;
	struct result_row *rows; /* the kernel archives, then every cell of the plan */
	size_t n_rows;
	struct result_step *steps; /* by start time */
	size_t n_steps;
	int n_lanes;
	long long span_ms;
	struct result_toolkit *toolkits;
	size_t n_toolkits;
	struct result_python *pythons;
	size_t n_pythons;
	/* While building (not in report.json): the renderer's step table and the row of each of
	 * its toolkits and cells (SIZE_MAX: no row). */
	const struct graph_step *graph_steps;
	size_t n_graph_steps;
	size_t *toolkit_row, *cell_row;
};

/* The rows of plan p as graph g builds them, all waiting; targets are ninja's (no target or
 * "all": every row is shown; "kernels": the archives; a cell id: that cell and its archive),
 * and the toolchain the plan uses. Never fails. */
void result_init(struct arena *a, const struct plan *p, const struct build_graph *g,
                 const struct strv *targets, struct build_result *m);
/* The row a step belongs to, from the description in ninja's status line ("<row>: <step>", or
 * an output under the row's directory); *step gets the step without the row. SIZE_MAX: none. */
size_t result_row_of_desc(const struct build_result *m, const char *desc, const char **step);
/* The word for a row's state: "waiting", "compiling" (running), "ok", "FAILED", ... */
const char *result_state_word(const struct result_row *w);
/* The word report.json and the HTML use for a row's result: "ok", "failed", "cannot build
 * here", "not selected". */
const char *result_word(const struct result_row *w);
/* After ninja: the steps this build ran and each row's time, from the log entries the run
 * appended after mark `before` (one read of .ninja_log), each row's work from the latest entry of
 * every output; each placed cell's wheel, size and audit; the wall time. Warnings (never errors) on
 * d. */
void result_finish(struct arena *a, struct diag *d, const struct ninja_log_mark *before,
                   double wall, struct build_result *m);
/* Counts the rows of cells: built, failed (or blocked or not built), cannot build here. */
void result_count(const struct build_result *m, size_t *ok, size_t *failed, size_t *skipped);

/* report_json.c: the model as report.json, and back. */

/* Returns the model as report.json's document (format RESULT_FORMAT); json_decref it. */
json_t *result_to_json(const struct build_result *m);
/* Reads a report.json document into m (arena strings). False + diagnostic (naming path) when
 * it is not one of this format. */
bool result_from_json(struct arena *a, struct diag *d, const char *path, const json_t *doc,
                      struct build_result *m);
/* Reads build_dir/report.json. False + diagnostic (with a hint) when there is none or it is
 * not readable as this format. */
bool result_load(struct arena *a, struct diag *d, const char *build_dir, struct build_result *m);
/* Sets each row's expected work from the previous build's report.json in build_dir (by row
 * name), for the progress ETA. A missing or older report: no estimate, quietly; an unreadable
 * one: a warning on d. */
void result_expect(struct arena *a, struct diag *d, const char *build_dir, struct build_result *m);

#endif
