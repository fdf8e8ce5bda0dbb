/* build_run.c: runs ninja in a pseudo-terminal and turns its status lines into progress per
 * kernel archive and per cell: redrawn in place on a terminal, append-only lines elsewhere,
 * groups, annotations and a step summary under GitHub Actions. */
#define _GNU_SOURCE /* posix_openpt, ptsname, cfmakeraw */
#include "cli/build_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/os.h"

extern char **environ;

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
	struct strbuf block;   /* output following a finished edge */
	bool fin_pending;      /* an edge finished; the next record says whether it failed */
	size_t fin_row;
	const char *fin_step;
	double fin_secs;
	bool fin_failed;
	bool no_work;
	const char *repo_root; /* for annotation paths */
	regex_t re_gcc, re_nvcc, re_audit;
};

bool build_progress_parse(const char *text, enum build_progress *out)
{
	static const char *const names[] = {"auto", "tty", "plain"};
	for (int i = 0; i < 3; i++) {
		if (!strcmp(text, names[i])) {
			*out = (enum build_progress)i;
			return true;
		}
	}
	return false;
}

static double now_s(const struct run *r)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) / 1e9;
}

static const char *fmt_secs(struct arena *a, double s)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		return arena_printf(a, "%.1fs", s);
	return arena_printf(a, "%dm%02ds", (int)s / 60, (int)s % 60);
}

/* The state word a step puts its row in. */
static const char *step_state(const char *step)
{
	static const char *const map[][2] = {
	    {"nvcc ", "compiling"}, {"cc ", "compiling"}, {"ar ", "archiving"},
	    {"link ", "linking"},   {"stage", "staging"}, {"pack", "packing"},
	    {"audit", "auditing"},  {"test", "testing"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (!strncmp(step, map[i][0], strlen(map[i][0])))
			return map[i][1];
	return "running";
}

static const char *state_word(const struct row *w)
{
	switch (w->state) {
	case ROW_WAITING:
		return "waiting";
	case ROW_RUNNING:
		return w->step ? step_state(w->step) : "running";
	case ROW_OK:
		return "ok";
	case ROW_FAILED:
		return "FAILED";
	case ROW_BLOCKED:
		return "blocked";
	case ROW_NOT_BUILT:
		return "not built";
	}
	return "?";
}

/* Rows: one per kernel archive, then one per cell in the graph. */
static void rows_init(struct run *r)
{
	struct arena *a = &r->c->arena;
	const struct plan *p = r->p;
	const struct build_graph *g = r->g;
	r->rows = arena_calloc(a, p->n_toolkits + p->n_cells + 1, sizeof(*r->rows));
	size_t *arch_row = arena_calloc(a, p->n_toolkits + 1, sizeof(size_t));
	for (size_t t = 0; t < p->n_toolkits; t++) {
		arch_row[t] = SIZE_MAX;
		if (!g->archives[t].dir)
			continue;
		struct row *w = &r->rows[r->n_rows];
		w->name = arena_printf(a, "kernels CUDA %s", p->toolkits[t].cuda);
		w->prefix = arena_printf(a, "%s/", g->archives[t].dir);
		w->last_step = "ar ";
		w->is_archive = true;
		w->target = g->archives[t].archive;
		w->archive = SIZE_MAX;
		arch_row[t] = r->n_rows++;
	}
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell_paths *cp = &g->cells[i];
		if (!cp->dir)
			continue;
		struct row *w = &r->rows[r->n_rows++];
		w->name = p->cells[i].id;
		w->prefix = arena_printf(a, "%s/", cp->dir);
		w->last_step = cp->tested ? "test" : "audit";
		w->final = cp->final;
		w->target = cp->target;
		w->archive = arch_row[p->cells[i].toolkit];
	}
	for (size_t i = 0; i < r->n_rows; i++)
		r->rows[i].t_start = r->rows[i].t_end = -1;
}

/* The row an edge belongs to: "<row>: <step>" descriptions name it; others ("ar <out>",
 * "link <out>") name an output under the row's directory. */
static size_t row_of(const struct run *r, const char *desc, const char **step)
{
	*step = desc;
	const char *colon = strstr(desc, ": ");
	if (colon) {
		size_t n = (size_t)(colon - desc);
		for (size_t i = 0; i < r->n_rows; i++) {
			if (strlen(r->rows[i].name) == n && !strncmp(desc, r->rows[i].name, n)) {
				*step = colon + 2;
				return i;
			}
		}
	}
	for (size_t i = 0; i < r->n_rows; i++)
		if (strstr(desc, r->rows[i].prefix))
			return i;
	/* Older descriptions: "nvcc <src> [CUDA 13.0]", "cc <src> [<id>]". */
	const char *br = strrchr(desc, '[');
	if (br) {
		for (size_t i = 0; i < r->n_rows; i++) {
			const char *nm = r->rows[i].name;
			size_t n = strlen(nm);
			if (!strncmp(br + 1, nm, n) && br[1 + n] == ']')
				return i;
			if (r->rows[i].is_archive && strstr(br, nm + strlen("kernels ")))
				return i;
		}
	}
	return SIZE_MAX;
}

/* Previous timings: .ninja_log keeps the latest duration of every output. */
static void load_expected(struct run *r)
{
	struct source log;
	struct diag quiet = {0};
	struct arena *a = &r->c->arena;
	if (!os_read_file(a, &quiet, os_join(a, r->g->build_dir, ".ninja_log"), &log))
		return;
	struct strv seen = {0};
	const char *s = log.text, *end = log.text + log.len;
	/* Later lines win: walk from the end, count an output once. */
	while (end > s) {
		const char *ls = end;
		while (ls > s && ls[-1] != '\n')
			ls--;
		char *line = arena_strndup(a, ls, (size_t)(end - ls));
		end = ls > s ? ls - 1 : s;
		long long st, en, mt;
		char out[4096];
		if (line[0] == '#' ||
		    sscanf(line, "%lld\t%lld\t%lld\t%4095[^\t]", &st, &en, &mt, out) != 4)
			continue;
		if (strv_contains(&seen, out))
			continue;
		strv_push(a, &seen, arena_strdup(a, out));
		for (size_t i = 0; i < r->n_rows; i++) {
			if (!strncmp(out, r->rows[i].prefix, strlen(r->rows[i].prefix))) {
				r->rows[i].expected += (double)(en - st) / 1000.0;
				r->rows[i].n_expected++;
			}
		}
	}
}

/* Remaining work from the previous build's timings, spread over the jobs; <0 when unknown.
 * When ninja runs far fewer steps than the previous build knew (an incremental build), the
 * rows not started yet are assumed up to date. */
static double eta(const struct run *r, double t)
{
	double left = 0;
	size_t known = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		known += r->rows[i].n_expected;
	if (known == 0)
		return -1;
	bool full = (double)r->total >= 0.8 * (double)known;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct row *w = &r->rows[i];
		if (w->state == ROW_RUNNING) {
			double rest = w->expected - (t - w->t_start);
			left += rest > 0 ? rest : 0;
		} else if (w->state == ROW_WAITING && full) {
			left += w->expected;
		}
	}
	return left / (r->jobs > 0 ? r->jobs : 1);
}

/* Writes text with every line indented, for a block under its row. */
static void put_indented(struct strbuf *sb, const char *text, const char *indent)
{
	const char *s = text;
	while (*s) {
		size_t n = strcspn(s, "\n");
		sb_puts(sb, indent);
		sb_add(sb, s, n);
		sb_putc(sb, '\n');
		s += n + (s[n] == '\n');
	}
}

static void tty_clear(struct run *r)
{
	if (r->drawn > 0)
		printf("\x1b[%dF\x1b[J", r->drawn);
	r->drawn = 0;
}

static int term_size(int *rows)
{
	struct winsize ws = {0};
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) {
		*rows = 50;
		return 100;
	}
	*rows = ws.ws_row ? ws.ws_row : 50;
	return ws.ws_col;
}

/* Appends one line cut to width columns (our lines are ASCII plus colour sequences). */
static void put_line(struct strbuf *sb, const char *text, int width)
{
	int col = 0;
	for (const char *s = text; *s; s++) {
		if (*s == '\x1b') {
			const char *e = s + 1;
			while (*e && !(*e >= '@' && *e <= '~' && e != s + 1))
				e++;
			sb_add(sb, s, (size_t)(e - s) + (*e != 0));
			s = *e ? e : e - 1;
			continue;
		}
		if (col >= width - 1)
			continue;
		sb_putc(sb, *s);
		col++;
	}
	sb_puts(sb, "\x1b[0m\x1b[K\n");
}

static void tty_draw(struct run *r)
{
	struct arena *a = &r->c->arena;
	double t = now_s(r);
	int height, width = term_size(&height);
	size_t wid = 4;
	for (size_t i = 0; i < r->n_rows; i++)
		if (strlen(r->rows[i].name) > wid)
			wid = strlen(r->rows[i].name);
	/* When the rows do not fit, show the busy and failed ones and count the others. */
	bool all = (int)r->n_rows + 2 < height;
	struct strbuf sb = {0};
	if (r->drawn > 0)
		sb_printf(&sb, "\x1b[%dF", r->drawn);
	int lines = 0;
	size_t hidden = 0;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct row *w = &r->rows[i];
		if (!all && (w->state == ROW_WAITING || w->state == ROW_OK) && lines + 3 < height) {
			hidden++;
			continue;
		}
		const char *color = w->state == ROW_OK        ? "\x1b[32m"
		                    : w->state == ROW_FAILED  ? "\x1b[31;1m"
		                    : w->state == ROW_RUNNING ? "\x1b[33m"
		                                              : "\x1b[2m";
		double el = w->t_start < 0 ? 0 : (w->t_end >= 0 ? w->t_end : t) - w->t_start;
		const char *step = w->state == ROW_RUNNING || w->state == ROW_FAILED ? w->step : "";
		if (w->state == ROW_BLOCKED)
			step = "its kernel archive failed";
		char *line = arena_printf(a, "  %-*s  %s%-9s\x1b[0m  %7s  %s", (int)wid, w->name,
		                          color, state_word(w),
		                          w->t_start < 0 ? "" : fmt_secs(a, el), step ? step : "");
		put_line(&sb, line, width);
		lines++;
	}
	size_t ok = 0, failed = 0, busy = 0;
	for (size_t i = 0; i < r->n_rows; i++) {
		ok += r->rows[i].state == ROW_OK;
		failed += r->rows[i].state == ROW_FAILED;
		busy += r->rows[i].state == ROW_RUNNING;
	}
	double e = eta(r, t);
	char *sum =
	    arena_printf(a,
	                 "\x1b[1m[%ld/%ld steps]\x1b[0m %zu/%zu done, %zu running%s%s, "
	                 "%s elapsed%s%s%s",
	                 r->finished, r->total, ok, r->n_rows, busy,
	                 failed ? arena_printf(a, ", \x1b[31m%zu failed\x1b[0m", failed) : "",
	                 hidden ? arena_printf(a, " (%zu not shown)", hidden) : "", fmt_secs(a, t),
	                 e >= 0 && busy ? ", about " : "", e >= 0 && busy ? fmt_secs(a, e) : "",
	                 e >= 0 && busy ? " left" : "");
	put_line(&sb, sum, width);
	lines++;
	sb_puts(&sb, "\x1b[J");
	fwrite(sb_str(&sb), 1, sb.len, stdout);
	fflush(stdout);
	sb_release(&sb);
	r->drawn = lines;
	r->last_draw = t;
}

/* Prints a block of text above the live area (tty) or in sequence (plain). */
static void emit_text(struct run *r, const char *text)
{
	if (r->tty) {
		tty_clear(r);
		fputs(text, stdout);
		tty_draw(r);
	} else {
		fputs(text, stdout);
		fflush(stdout);
	}
}

/* Plain mode: one timestamped line per event, "[row] step" like ninja's own lines (a step's
 * end) or "[row] started step", "[row] ok", "[row] FAILED step"; under GitHub Actions into
 * the row's group. */
static void plain_line(struct run *r, size_t row, const char *what, const char *detail)
{
	if (r->tty)
		return;
	struct arena *a = &r->c->arena;
	char *line = arena_printf(a, "%7.1fs [%s] %s%s%s\n", now_s(r),
	                          row == SIZE_MAX ? "ninja" : r->rows[row].name, what,
	                          *what && detail && *detail ? " " : "", detail ? detail : "");
	if (r->gha && row != SIZE_MAX)
		sb_puts(&r->rows[row].log, line);
	else
		emit_text(r, line);
}

/* Escapes a workflow command's data (props: a property value as well). */
static char *gha_escape(struct arena *a, const char *s, bool prop)
{
	struct strbuf sb = {0};
	for (; *s; s++) {
		if (*s == '%')
			sb_puts(&sb, "%25");
		else if (*s == '\r')
			sb_puts(&sb, "%0D");
		else if (*s == '\n')
			sb_puts(&sb, "%0A");
		else if (prop && *s == ':')
			sb_puts(&sb, "%3A");
		else if (prop && *s == ',')
			sb_puts(&sb, "%2C");
		else
			sb_putc(&sb, *s);
	}
	return sb_to_arena(&sb, a);
}

/* A compiler's path (relative to the build dir) as the repository names it. */
static const char *repo_path(struct run *r, const char *path)
{
	struct arena *a = &r->c->arena;
	char *abs = path[0] == '/' ? arena_strdup(a, path) : os_join(a, r->g->build_dir, path);
	char *real = os_realpath(a, abs);
	if (real)
		abs = real;
	size_t n = strlen(r->repo_root);
	if (!strncmp(abs, r->repo_root, n) && abs[n] == '/')
		return abs + n + 1;
	return abs;
}

/* Annotations for the errors in a failed step's output: compiler diagnostics and audit
 * findings; a failure with neither gets one annotation naming the step. */
static void gha_annotate(struct run *r, size_t row, const char *step, const char *text)
{
	struct arena *a = &r->c->arena;
	struct strbuf *out = &r->rows[row].notes;
	size_t before = out->len;
	const char *s = text;
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *line = arena_strndup(a, s, n);
		s += n + (s[n] == '\n');
		regmatch_t m[6];
		if (!regexec(&r->re_gcc, line, 6, m, 0)) {
			line[m[1].rm_eo] = line[m[2].rm_eo] = '\0';
			if (m[3].rm_so >= 0)
				line[m[3].rm_eo] = '\0';
			sb_printf(out, "::error file=%s,line=%s%s%s::%s\n",
			          gha_escape(a, repo_path(r, line), true), line + m[2].rm_so,
			          m[3].rm_so >= 0 ? ",col=" : "",
			          m[3].rm_so >= 0 ? line + m[3].rm_so : "",
			          gha_escape(a, line + m[5].rm_so, false));
		} else if (!regexec(&r->re_nvcc, line, 6, m, 0)) {
			line[m[1].rm_eo] = line[m[2].rm_eo] = '\0';
			sb_printf(out, "::error file=%s,line=%s::%s\n",
			          gha_escape(a, repo_path(r, line), true), line + m[2].rm_so,
			          gha_escape(a, line + m[3].rm_so, false));
		} else if (!regexec(&r->re_audit, line, 6, m, 0)) {
			sb_printf(
			    out, "::error title=%s::%s\n",
			    gha_escape(a, arena_printf(a, "audit %s", r->rows[row].name), true),
			    gha_escape(a, line + strlen("cuwheel: "), false));
		}
	}
	if (out->len == before)
		sb_printf(out, "::error title=%s::%s\n",
		          gha_escape(a, arena_printf(a, "%s failed", r->rows[row].name), true),
		          gha_escape(a,
		                     arena_printf(a, "%s failed; its output is in the group %s",
		                                  step, r->rows[row].name),
		                     false));
}

/* GitHub Actions: a finished row's lines as one group, then its annotations. */
static void gha_group(struct run *r, size_t row)
{
	struct row *w = &r->rows[row];
	if (!r->gha || (w->log.len == 0 && w->notes.len == 0))
		return;
	double el = w->t_start < 0 ? 0 : w->t_end - w->t_start;
	printf("::group::%s %s %s\n%s::endgroup::\n%s", w->name, state_word(w),
	       fmt_secs(&r->c->arena, el), sb_str(&w->log), sb_str(&w->notes));
	fflush(stdout);
	sb_reset(&w->log);
	sb_reset(&w->notes);
}

static void row_done(struct run *r, size_t row, enum row_state st, const char *detail)
{
	struct row *w = &r->rows[row];
	w->state = st;
	w->t_end = now_s(r);
	plain_line(r, row, st == ROW_OK ? "ok" : "FAILED", detail);
	if (st == ROW_FAILED && w->is_archive) {
		for (size_t i = 0; i < r->n_rows; i++) {
			if (r->rows[i].archive == row && r->rows[i].state == ROW_WAITING) {
				r->rows[i].state = ROW_BLOCKED;
				if (!r->tty)
					plain_line(
					    r, i, "blocked:",
					    arena_printf(&r->c->arena, "%s failed", w->name));
			}
		}
	}
}

/* The edge that finished last and the output ninja printed after it are complete: a line
 * saying how it ended, its output once, as one block under its row, and the row's state. */
static void finish_flush(struct run *r)
{
	struct arena *a = &r->c->arena;
	const char *text = sb_str(&r->block);
	if (!r->fin_pending) {
		if (r->block.len)
			emit_text(r, text);
		sb_reset(&r->block);
		return;
	}
	r->fin_pending = false;
	size_t row = r->fin_row;
	const char *detail = arena_printf(a, "%s (%s)", r->fin_step, fmt_secs(a, r->fin_secs));
	if (row != SIZE_MAX && r->rows[row].running > 0)
		r->rows[row].running--;
	if (r->fin_failed && row != SIZE_MAX) {
		r->rows[row].step = r->fin_step;
		if (r->rows[row].state != ROW_FAILED)
			row_done(r, row, ROW_FAILED, detail);
		else
			plain_line(r, row, "FAILED", detail);
	} else {
		plain_line(r, row, r->fin_failed ? "FAILED" : "", detail);
	}
	if (r->block.len) {
		const char *name = row == SIZE_MAX ? "ninja" : r->rows[row].name;
		struct strbuf sb = {0};
		if (r->tty)
			sb_printf(&sb, "%s\x1b[1m%s\x1b[0m | %s:\n",
			          r->fin_failed ? "\x1b[31;1mFAILED\x1b[0m " : "", name,
			          r->fin_step);
		put_indented(&sb, text, "    ");
		if (r->gha && row != SIZE_MAX) {
			sb_puts(&r->rows[row].log, sb_str(&sb));
			if (r->fin_failed)
				gha_annotate(r, row, r->fin_step, text);
		} else {
			emit_text(r, sb_str(&sb));
		}
		sb_release(&sb);
		sb_reset(&r->block);
	} else if (r->gha && r->fin_failed && row != SIZE_MAX) {
		gha_annotate(r, row, r->fin_step, "");
	}
	if (row == SIZE_MAX || r->fin_failed)
		return;
	struct row *w = &r->rows[row];
	if (w->state == ROW_RUNNING && w->running == 0 &&
	    !strncmp(r->fin_step, w->last_step, strlen(w->last_step))) {
		row_done(r, row, ROW_OK, fmt_secs(a, now_s(r) - w->t_start));
		gha_group(r, row);
	}
}

static void on_start(struct run *r, const char *desc)
{
	const char *step;
	size_t row = row_of(r, desc, &step);
	if (r->n_edges == r->cap_edges) {
		size_t cap = r->cap_edges ? 2 * r->cap_edges : 16;
		r->edges =
		    arena_realloc(&r->c->arena, r->edges, r->cap_edges, cap, sizeof(*r->edges));
		r->cap_edges = cap;
	}
	r->edges[r->n_edges++] =
	    (struct edge){.desc = arena_strdup(&r->c->arena, desc), .row = row, .t0 = now_s(r)};
	if (row == SIZE_MAX) {
		plain_line(r, row, "started", desc);
		return;
	}
	struct row *w = &r->rows[row];
	if (w->t_start < 0)
		w->t_start = now_s(r);
	if (w->state == ROW_WAITING || w->state == ROW_BLOCKED)
		w->state = ROW_RUNNING;
	w->running++;
	w->step = arena_strdup(&r->c->arena, step);
	plain_line(r, row, "started", step);
}

static void on_finish(struct run *r, const char *desc)
{
	const char *step;
	size_t row = row_of(r, desc, &step);
	double t0 = -1;
	for (size_t i = 0; i < r->n_edges; i++) {
		if (!strcmp(r->edges[i].desc, desc)) {
			t0 = r->edges[i].t0;
			r->edges[i] = r->edges[--r->n_edges];
			break;
		}
	}
	if (t0 < 0) { /* no start line (ninja without a terminal): started and done now */
		if (row != SIZE_MAX) {
			struct row *w = &r->rows[row];
			if (w->t_start < 0)
				w->t_start = now_s(r);
			if (w->state == ROW_WAITING)
				w->state = ROW_RUNNING;
			w->running++;
			w->step = arena_strdup(&r->c->arena, step);
		}
		t0 = now_s(r);
	}
	r->fin_pending = true;
	r->fin_row = row;
	r->fin_step = arena_strdup(&r->c->arena, step);
	r->fin_secs = now_s(r) - t0;
	r->fin_failed = false;
}

static void strip_ansi(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (*p == '\x1b' && p[1] == '[') {
			p += 2;
			while (*p && !(*p >= '@' && *p <= '~'))
				p++;
			if (!*p)
				break;
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
}

/* One record of ninja's output: a status line, or a line of the last finished edge's output
 * (ninja prints an edge's output, after "FAILED:" and the command when it failed, right after
 * the edge's status line, in one piece). */
static void on_record(struct run *r, char *rec)
{
	strip_ansi(rec);
	if (!strncmp(rec, STATUS_MARK, strlen(STATUS_MARK))) {
		long s, f, t;
		int off = 0;
		if (sscanf(rec + strlen(STATUS_MARK), "%ld %ld %ld@@ %n", &s, &f, &t, &off) != 3 ||
		    off == 0)
			return;
		const char *desc = rec + strlen(STATUS_MARK) + off;
		finish_flush(r);
		r->total = t;
		if (f > r->finished) {
			r->finished = f;
			r->started = s;
			on_finish(r, desc);
		} else if (s > r->started) {
			r->started = s;
			on_start(r, desc);
		}
		return;
	}
	if (!strncmp(rec, "FAILED: ", 8) && r->fin_pending && r->block.len == 0) {
		/* Keep the FAILED line and the command in the block: they say what ran. */
		r->fin_failed = true;
		sb_puts(&r->block, rec);
		sb_putc(&r->block, '\n');
		return;
	}
	if (!strncmp(rec, "ninja: ", 7)) {
		finish_flush(r);
		if (strstr(rec, "no work to do")) {
			r->no_work = true;
			return;
		}
		if (!strncmp(rec, "ninja: Entering directory", 25))
			return;
		emit_text(r, arena_printf(&r->c->arena, "%s\n", rec));
		return;
	}
	if (*rec == '\0' && r->block.len == 0)
		return;
	sb_puts(&r->block, rec);
	sb_putc(&r->block, '\n');
}

/* Splits the bytes read into records: ninja ends a status line with "\x1b[K" on a terminal,
 * with a newline elsewhere; its edges' output comes in whole lines. */
static void feed(struct run *r, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = buf[i];
		if (ch == '\r' || ch == '\n') {
			char *rec =
			    arena_strndup(&r->c->arena, sb_str(&r->pending), r->pending.len);
			sb_reset(&r->pending);
			if (*rec || ch == '\n')
				on_record(r, rec);
			continue;
		}
		sb_putc(&r->pending, ch);
		if (ch == 'K' && r->pending.len >= 3 &&
		    !strcmp(r->pending.buf + r->pending.len - 3, "\x1b[K") &&
		    !strncmp(r->pending.buf, STATUS_MARK, strlen(STATUS_MARK))) {
			char *rec =
			    arena_strndup(&r->c->arena, sb_str(&r->pending), r->pending.len);
			sb_reset(&r->pending);
			on_record(r, rec);
		}
	}
}

/* Opens a pseudo-terminal for ninja, so that it prints a status line when each edge starts
 * (it does only on a terminal). Raw, and with no width: ninja then never elides a line. */
static int pty_open(int *slave)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -1;
	char *name = (grantpt(m) == 0 && unlockpt(m) == 0) ? ptsname(m) : NULL;
	int s = name ? open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	if (s < 0) {
		close(m);
		return -1;
	}
	struct termios tio;
	if (tcgetattr(s, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(s, TCSANOW, &tio);
	}
	struct winsize ws = {0};
	ioctl(s, TIOCSWINSZ, &ws);
	*slave = s;
	return m;
}

static const char **child_env(struct arena *a, const char *const *add, bool pty)
{
	struct strv v = {0};
	const char *own[] = {"NINJA_STATUS=" STATUS_FMT, pty ? "TERM=xterm" : "TERM=dumb", NULL};
	for (char **e = environ; *e; e++) {
		size_t k = strcspn(*e, "=");
		bool over = false;
		for (const char *const *x = add; x && *x && !over; x++)
			over = !strncmp(*x, *e, k) && (*x)[k] == '=';
		for (const char *const *x = own; *x && !over; x++)
			over = !strncmp(*x, *e, k) && (*x)[k] == '=';
		if (!over)
			strv_push(a, &v, *e);
	}
	for (const char *const *x = add; x && *x; x++)
		strv_push(a, &v, *x);
	for (const char *const *x = own; *x; x++)
		strv_push(a, &v, *x);
	strv_push(a, &v, NULL);
	return v.v;
}

static bool spawn_ninja(struct run *r, const char *const *argv, const char *const *env, int *fd,
                        pid_t *pid)
{
	int slave = -1, master = pty_open(&slave);
	int pfd[2] = {-1, -1};
	if (master < 0) {
		if (pipe(pfd) != 0) {
			diag_errno(&r->c->diag, "pipe", "cannot capture ninja's output");
			return false;
		}
		master = pfd[0];
		slave = pfd[1];
		fcntl(master, F_SETFD, FD_CLOEXEC);
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, slave, 1);
	posix_spawn_file_actions_adddup2(&fa, slave, 2);
	const char **envp = child_env(&r->c->arena, env, pfd[0] < 0);
	int err = posix_spawnp(pid, argv[0], &fa, NULL, (char *const *)argv, (char *const *)envp);
	posix_spawn_file_actions_destroy(&fa);
	if (pfd[1] >= 0)
		close(pfd[1]); /* a pipe: EOF when ninja exits */
	if (err != 0) {
		errno = err;
		diag_errno(&r->c->diag, argv[0], "cannot run ninja");
		close(master);
		if (pfd[1] < 0)
			close(slave);
		return false;
	}
	fd[0] = master;
	fd[1] = pfd[1] >= 0 ? -1 : slave;
	return true;
}

/* True when ninja has nothing to do for target: a row no step of which ran is up to date. */
static bool up_to_date(struct run *r, const char *ninja, const char *target)
{
	const char *argv[] = {ninja, "-C", r->g->build_dir, "-n", target, NULL};
	struct os_run run = {.argv = argv, .capture = true};
	struct strbuf out = {0};
	int status = 1;
	struct diag quiet = {0};
	bool ok = os_run(&quiet, &run, &out, &status) && status == 0 &&
	          strstr(sb_str(&out), "no work to do") != NULL;
	sb_release(&out);
	return ok;
}

/* After ninja: rows that never finished are failed, blocked or not built. */
static void finish_rows(struct run *r, const char *ninja, int status)
{
	for (size_t i = 0; i < r->n_rows; i++) {
		struct row *w = &r->rows[i];
		if (w->state == ROW_OK || w->state == ROW_FAILED) {
			gha_group(r, i);
			continue;
		}
		if (status == 0) {
			row_done(r, i, ROW_OK, w->t_start < 0 ? "up to date" : "");
		} else if (w->state == ROW_WAITING && up_to_date(r, ninja, w->target)) {
			row_done(r, i, ROW_OK, "up to date");
		} else if (w->state != ROW_BLOCKED) {
			w->state = ROW_NOT_BUILT;
			w->t_end = now_s(r);
			plain_line(r, i, "not built:", "ninja stopped first");
		}
		gha_group(r, i);
	}
}

/* GitHub Actions: the table of rows as Markdown in $GITHUB_STEP_SUMMARY. */
static void gha_summary(struct run *r)
{
	const char *path = getenv("GITHUB_STEP_SUMMARY");
	if (!path || !*path)
		return;
	struct arena *a = &r->c->arena;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "### cuwheel build\n\n| cell | result | wheel | size | time |\n"
	           "|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct row *w = &r->rows[i];
		const char *wheel = "", *size = "";
		struct source s;
		struct diag quiet = {0};
		if (w->final && w->state == ROW_OK &&
		    os_read_file(a, &quiet, os_join(a, r->g->build_dir, w->final), &s)) {
			char *path_w = arena_strndup(a, s.text, strcspn(s.text, "\n"));
			struct stat st;
			wheel = strrchr(path_w, '/') ? strrchr(path_w, '/') + 1 : path_w;
			if (stat(path_w, &st) == 0)
				size =
				    st.st_size >= 1 << 20
				        ? arena_printf(a, "%.1f MB", (double)st.st_size / (1 << 20))
				        : arena_printf(a, "%.1f kB", (double)st.st_size / 1024);
		}
		double el = w->t_start < 0 ? 0 : w->t_end - w->t_start;
		fprintf(f, "| `%s` | %s | %s%s%s | %s | %s |\n", w->name,
		        w->state == ROW_OK       ? "ok"
		        : w->state == ROW_FAILED ? "**FAILED**"
		                                 : state_word(w),
		        *wheel ? "`" : "", wheel, *wheel ? "`" : "", size, fmt_secs(a, el));
	}
	fputc('\n', f);
	fclose(f);
}

static bool want_tty(enum build_progress mode)
{
	if (mode != BUILD_PROGRESS_AUTO)
		return mode == BUILD_PROGRESS_TTY;
	const char *no_color = getenv("NO_COLOR"), *ci = getenv("CI"), *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(no_color && *no_color) && !(ci && *ci) &&
	       !(term && !strcmp(term, "dumb"));
}

static int jobs_of(const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "-j") && argv[i + 1])
			return atoi(argv[i + 1]);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

bool build_run_ninja_mode(struct cli *c, const struct plan *p, const struct build_graph *g,
                          const char *const *argv, const char *const *env, enum build_progress mode,
                          int *status)
{
	struct run r = {.c = c, .p = p, .g = g, .fin_row = SIZE_MAX};
	const char *gha = getenv("GITHUB_ACTIONS");
	r.gha = gha && !strcmp(gha, "true");
	r.tty = !r.gha && want_tty(mode);
	r.jobs = jobs_of(argv);
	const char *ws = getenv("GITHUB_WORKSPACE");
	r.repo_root = ws && *ws ? os_realpath(&c->arena, ws) : NULL;
	if (!r.repo_root)
		r.repo_root = os_realpath(&c->arena, p->cfg->project_dir);
	if (!r.repo_root)
		r.repo_root = p->cfg->project_dir;
	/* gcc/clang "file:line:col: error: msg"; nvcc "file(line): error: msg". */
	regcomp(&r.re_gcc, "^(.+):([0-9]+):([0-9]+): (fatal error|error): (.*)$", REG_EXTENDED);
	regcomp(&r.re_nvcc, "^(.+)\\(([0-9]+)\\): (error.*)$", REG_EXTENDED);
	regcomp(&r.re_audit, "^cuwheel: .*: error: ", REG_EXTENDED);
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	rows_init(&r);
	load_expected(&r);

	int fd[2];
	pid_t pid;
	if (!spawn_ninja(&r, argv, env, fd, &pid)) {
		regfree(&r.re_gcc);
		regfree(&r.re_nvcc);
		regfree(&r.re_audit);
		return false;
	}
	if (r.tty)
		tty_draw(&r);
	bool exited = false;
	int ws_status = 0;
	char buf[8192];
	for (;;) {
		struct pollfd pfd = {.fd = fd[0], .events = POLLIN};
		int pr = poll(&pfd, 1, exited ? 0 : 250);
		if (pr > 0) {
			ssize_t n = read(fd[0], buf, sizeof(buf));
			if (n > 0) {
				feed(&r, buf, (size_t)n);
			} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				if (!exited && waitpid(pid, &ws_status, 0) == pid)
					exited = true;
				break;
			}
		} else if (pr == 0 && exited) {
			break; /* drained */
		}
		if (!exited && waitpid(pid, &ws_status, WNOHANG) == pid)
			exited = true;
		if (r.tty && now_s(&r) - r.last_draw >= 0.25)
			tty_draw(&r);
	}
	close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	if (r.pending.len) {
		char *rec = arena_strndup(&c->arena, sb_str(&r.pending), r.pending.len);
		on_record(&r, rec);
	}
	finish_flush(&r);
	*status = WIFEXITED(ws_status) ? WEXITSTATUS(ws_status) : 128 + WTERMSIG(ws_status);
	finish_rows(&r, argv[0], *status);
	if (r.tty) {
		tty_draw(&r);
	} else if (r.no_work) {
		printf("ninja: no work to do\n");
	}
	fflush(stdout);
	if (r.gha)
		gha_summary(&r);
	for (size_t i = 0; i < r.n_rows; i++) {
		sb_release(&r.rows[i].log);
		sb_release(&r.rows[i].notes);
	}
	sb_release(&r.pending);
	sb_release(&r.block);
	regfree(&r.re_gcc);
	regfree(&r.re_nvcc);
	regfree(&r.re_audit);
	return true;
}

bool build_run_ninja(struct cli *c, const struct plan *p, const struct build_graph *g,
                     const char *const *argv, const char *const *env, int *status)
{
	return build_run_ninja_mode(c, p, g, argv, env, BUILD_PROGRESS_AUTO, status);
}
