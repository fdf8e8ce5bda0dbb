/* build_internal.h: the run state shared by build_run.c, build_view.c and build_gha.c. */
#ifndef CUWHEEL_CLI_BUILD_INTERNAL_H
#define CUWHEEL_CLI_BUILD_INTERNAL_H

#include <regex.h>
#include <stddef.h>
#include <time.h>

#include "base/strbuf.h"
#include "report/build_result.h"
#include "cli/build_run.h"

/* Prefixed to every ninja status line so that it cannot be mistaken for compiler output:
 * edges started, finished, total, and ninja's own clock at the event (the edge's start or end
 * time, seconds since ninja started: the times .ninja_log records). */
#define STATUS_MARK "@@cuwheel "
#define STATUS_FMT  STATUS_MARK "%s %f %t %e@@ "

/* What the progress view keeps per row of the model beside the row itself. */
struct row_view {
	int running;         /* its steps running now */
	struct strbuf log;   /* GitHub Actions: the row's lines, printed as one group */
	struct strbuf notes; /* annotations, printed after the group */
};

struct edge {
	char *desc;
	size_t row; /* SIZE_MAX: no row */
	double t0;  /* its start on ninja's clock */
};

struct run {
	struct cli *c;
	const struct plan *p;
	struct build_result *m; /* the rows, their states and times: the one model */
	struct row_view *views; /* parallel to m->rows */
	bool tty, gha;
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
	bool fin_reopen;       /* one was shown after ninja went quiet; a FAILED line may follow */
	size_t fin_row;
	const char *fin_step;
	double fin_secs, fin_t;
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
/* Appends text to sb with every line prefixed by indent. */
void build_put_indented(struct strbuf *sb, const char *text, const char *indent);
/* tty: redraws the live area (one line per row and a summary) in place. */
void build_tty_draw(struct run *r);
/* Prints a block of text above the live area (tty) or in sequence (plain). */
void build_emit(struct run *r, const char *text);
/* Plain: prints "<t> [row] what detail" (into the row's group under GitHub Actions); t is
 * seconds on ninja's clock, row SIZE_MAX names ninja. Does nothing on a terminal. */
void build_plain_line(struct run *r, double t, size_t row, const char *what, const char *detail);
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

#endif
