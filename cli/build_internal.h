/* build_internal.h: the run state shared by build_run.c, build_view.c and build_gha.c. */
#ifndef CUWHEEL_CLI_BUILD_INTERNAL_H
#define CUWHEEL_CLI_BUILD_INTERNAL_H

#include <regex.h>
#include <stddef.h>
#include <time.h>

#include "base/strbuf.h"
#include "cli/build_run.h"

/* Prefixed to every ninja status line so that it cannot be mistaken for compiler output:
 * edges started, finished, total. */
#define STATUS_MARK "@@cuwheel "
#define STATUS_FMT  STATUS_MARK "%s %f %t@@ "

enum row_state {
	ROW_WAITING,
	ROW_RUNNING,
	ROW_OK,
	ROW_FAILED,
	ROW_BLOCKED,   /* its kernel archive failed */
	ROW_NOT_BUILT, /* ninja stopped before it */
};

struct row {
	const char *name;   /* cell id or "kernels CUDA 13.0" */
	const char *prefix; /* "cells/<id>/" or "kernels/cu130-<key>/": outputs under it are ours */
	const char *last_step; /* the step whose end means the row is done */
	const char *final;     /* cells: the stamp naming the wheel in dist/ (build-dir relative) */
	const char *target;    /* what to ask ninja about: the cell id, the archive's path */
	size_t archive;        /* cells: the row of their kernel archive; SIZE_MAX for none */
	bool is_archive;
	enum row_state state;
	const char *step; /* the step running (or that failed), as ninja described it */
	int running;
	double t_start, t_end; /* seconds since the build started; -1 when not yet */
	double expected;       /* seconds of work the previous build spent on this row */
	size_t n_expected;     /* its steps in the previous build */
	struct strbuf log;     /* GitHub Actions: the row's lines, printed as one group */
	struct strbuf notes;   /* annotations, printed after the group */
};

struct edge {
	char *desc;
	size_t row; /* SIZE_MAX: no row */
	double t0;
};

struct run {
	struct cli *c;
	const struct plan *p;
	const struct build_graph *g;
	bool tty, gha;
	struct row *rows;
	size_t n_rows;
	struct edge *edges; /* running edges */
	size_t n_edges, cap_edges;
	long started, finished, total;
	int jobs;
	struct timespec t0;
	int drawn; /* tty: lines of the live area on screen */
	double last_draw;
	struct strbuf pending; /* bytes of a record not yet complete */
	struct strbuf block;   /* output following a finished edge (at most OS_OUTPUT_MAX) */
	size_t block_dropped;  /* bytes of that output left out past OS_OUTPUT_MAX */
	bool fin_pending;      /* an edge finished; the next record says whether it failed */
	size_t fin_row;
	const char *fin_step;
	double fin_secs;
	bool fin_failed;
	bool no_work;
	const char *repo_root; /* for annotation paths */
	regex_t re_gcc, re_nvcc, re_audit;
};

/* build_view.c: what the user sees. */

/* Returns the seconds since the build started. */
double build_now(const struct run *r);
/* Returns s as "4.2s" or "3m07s" (in the run's arena); never fails. */
const char *build_fmt_secs(struct arena *a, double s);
/* Returns the word for a row's state: "compiling", "ok", "FAILED", ...; never fails. */
const char *build_state_word(const struct row *w);
/* Appends text to sb with every line prefixed by indent. */
void build_put_indented(struct strbuf *sb, const char *text, const char *indent);
/* tty: redraws the live area (one line per row and a summary) in place. */
void build_tty_draw(struct run *r);
/* Prints a block of text above the live area (tty) or in sequence (plain). */
void build_emit(struct run *r, const char *text);
/* Plain: prints "<time> [row] what detail" (into the row's group under GitHub Actions); row
 * SIZE_MAX names ninja. Does nothing on a terminal. */
void build_plain_line(struct run *r, size_t row, const char *what, const char *detail);
/* Returns true when progress is redrawn on a terminal for mode (auto decides from stdout and
 * env's NO_COLOR, CI and TERM). */
bool build_want_tty(const char *const *env, enum build_progress mode);

/* build_gha.c: GitHub Actions. */

/* Compiles the diagnostic patterns (constant: they compile) and finds the repository root that
 * annotation paths are relative to ($GITHUB_WORKSPACE, else the project). */
void build_gha_init(struct run *r);
/* Frees what build_gha_init made. */
void build_gha_free(struct run *r);
/* Queues ::error annotations for a failed step's output on the row (one naming the step when
 * the output has no diagnostic in it). */
void build_gha_annotate(struct run *r, size_t row, const char *step, const char *text);
/* Prints a finished row's lines as one ::group:: and then its annotations, and empties both. */
void build_gha_group(struct run *r, size_t row);
/* Appends the rows as a Markdown table to $GITHUB_STEP_SUMMARY; does nothing without it. */
void build_gha_summary(struct run *r);

#endif
