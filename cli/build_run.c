/* build_run.c: runs ninja in a pseudo-terminal (a pipe when none can be had), reads its status
 * lines and the output of its steps, and attributes them to rows: one per kernel archive and
 * per cell asked for. build_view.c shows the rows; build_gha.c adds GitHub Actions' parts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os.h"
#include "cli/build_internal.h"
#include "cli/ninja_log.h"

extern char **environ;

/* The targets on ninja's command line: the arguments that are not options or their values
 * (ninja permutes them, so they may come anywhere). */
static struct strv ninja_targets(struct arena *a, const char *const *argv)
{
	struct strv v = {0};
	for (size_t i = 1; argv[i]; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--")) {
			while (argv[++i])
				strv_push(a, &v, argv[i]);
			break;
		}
		if (s[0] != '-' || !s[1])
			strv_push(a, &v, s);
		else if (s[1] != '-' && !s[2] && strchr("Cdfjkltw", s[1]) && argv[i + 1])
			i++; /* "-j 8": the value is the next argument */
	}
	return v;
}

/* Which rows ninja was asked for (want_tk per toolkit, want_cell per cell): all of them for no
 * target or "all"; the archives for "kernels"; a cell for its id, with its archive; an archive
 * for its path. Rows outside them are not shown: their steps never run, so ninja succeeding says
 * nothing of them (`--stage kernels` must not report cells ok). */
static void rows_wanted(const struct run *r, const char *const *argv, bool *want_tk,
                        bool *want_cell)
{
	const struct plan *p = r->p;
	const struct build_graph *g = r->g;
	struct strv targets = ninja_targets(&r->c->arena, argv);
	bool all = targets.n == 0 || strv_contains(&targets, "all");
	for (size_t t = 0; t < p->n_toolkits; t++)
		want_tk[t] = all || (g->archives[t].archive &&
		                     (strv_contains(&targets, "kernels") ||
		                      strv_contains(&targets, g->archives[t].archive)));
	for (size_t i = 0; i < p->n_cells; i++) {
		want_cell[i] =
		    all || (g->cells[i].target && strv_contains(&targets, g->cells[i].target));
		if (want_cell[i])
			want_tk[p->cells[i].toolkit] = true;
	}
}

/* Rows: one per kernel archive, then one per cell in the graph, of those ninja was asked for. */
static void rows_init(struct run *r, const char *const *argv)
{
	struct arena *a = &r->c->arena;
	const struct plan *p = r->p;
	const struct build_graph *g = r->g;
	r->rows = arena_calloc(a, p->n_toolkits + p->n_cells + 1, sizeof(*r->rows));
	size_t *arch_row = arena_calloc(a, p->n_toolkits + 1, sizeof(size_t));
	bool *want_tk = arena_calloc(a, p->n_toolkits + 1, sizeof(bool));
	bool *want_cell = arena_calloc(a, p->n_cells + 1, sizeof(bool));
	rows_wanted(r, argv, want_tk, want_cell);
	for (size_t t = 0; t < p->n_toolkits; t++) {
		arch_row[t] = SIZE_MAX;
		if (!g->archives[t].dir || !want_tk[t])
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
		if (!cp->dir || !want_cell[i])
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
	struct ninja_log_entry *v;
	size_t n;
	/* A missing log is a first build; an unreadable one only makes the ETA less precise, but
	 * the user hears about it. */
	struct diag warn = cli_diag_as_warnings(r->c);
	ninja_log_read(&r->c->arena, &warn, r->g->build_dir, NINJA_LOG_LATEST, &v, &n);
	for (size_t e = 0; e < n; e++) {
		for (size_t i = 0; i < r->n_rows; i++) {
			if (!strncmp(v[e].output, r->rows[i].prefix, strlen(r->rows[i].prefix))) {
				r->rows[i].expected +=
				    (double)(v[e].end_ms - v[e].start_ms) / 1000.0;
				r->rows[i].n_expected++;
			}
		}
	}
}

static void row_done(struct run *r, size_t row, enum row_state st, const char *detail)
{
	struct row *w = &r->rows[row];
	w->state = st;
	w->t_end = build_now(r);
	build_plain_line(r, row, st == ROW_OK ? "ok" : "FAILED", detail);
	if (st == ROW_FAILED && w->is_archive) {
		for (size_t i = 0; i < r->n_rows; i++) {
			if (r->rows[i].archive == row && r->rows[i].state == ROW_WAITING) {
				r->rows[i].state = ROW_BLOCKED;
				if (!r->tty)
					build_plain_line(
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
	if (r->block_dropped) {
		sb_printf(&r->block, "[cuwheel: %zu more bytes of this output left out]\n",
		          r->block_dropped);
		r->block_dropped = 0;
	}
	/* A step's output (a compiler's, a test's) is escaped for the terminal or log it goes to:
	 * no escape sequence, CR, or line starting "::" (a workflow command) gets through. */
	const char *text = esc_mem(a, ESC_LOG, sb_str(&r->block), r->block.len);
	if (!r->fin_pending) {
		if (r->block.len)
			build_emit(r, text);
		sb_reset(&r->block);
		return;
	}
	r->fin_pending = false;
	size_t row = r->fin_row;
	const char *detail =
	    arena_printf(a, "%s (%s)", r->fin_step, build_fmt_secs(a, r->fin_secs));
	if (row != SIZE_MAX && r->rows[row].running > 0)
		r->rows[row].running--;
	if (r->fin_failed && row != SIZE_MAX) {
		r->rows[row].step = r->fin_step;
		if (r->rows[row].state != ROW_FAILED)
			row_done(r, row, ROW_FAILED, detail);
		else
			build_plain_line(r, row, "FAILED", detail);
	} else {
		build_plain_line(r, row, r->fin_failed ? "FAILED" : "", detail);
	}
	if (r->block.len) {
		const char *name = row == SIZE_MAX ? "ninja" : r->rows[row].name;
		struct strbuf sb = {0};
		if (r->tty)
			sb_printf(&sb, "%s\x1b[1m%s\x1b[0m | %s:\n",
			          r->fin_failed ? "\x1b[31;1mFAILED\x1b[0m " : "", name,
			          r->fin_step);
		build_put_indented(&sb, text, "    ");
		if (r->gha && row != SIZE_MAX) {
			sb_puts(&r->rows[row].log, sb_str(&sb));
			if (r->fin_failed)
				build_gha_annotate(r, row, r->fin_step, text);
		} else {
			build_emit(r, sb_str(&sb));
		}
		sb_release(&sb);
		sb_reset(&r->block);
	} else if (r->gha && r->fin_failed && row != SIZE_MAX) {
		build_gha_annotate(r, row, r->fin_step, "");
	}
	if (row == SIZE_MAX || r->fin_failed)
		return;
	struct row *w = &r->rows[row];
	if (w->state == ROW_RUNNING && w->running == 0 &&
	    !strncmp(r->fin_step, w->last_step, strlen(w->last_step))) {
		row_done(r, row, ROW_OK, build_fmt_secs(a, build_now(r) - w->t_start));
		build_gha_group(r, row);
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
	    (struct edge){.desc = arena_strdup(&r->c->arena, desc), .row = row, .t0 = build_now(r)};
	if (row == SIZE_MAX) {
		build_plain_line(r, row, "started", desc);
		return;
	}
	struct row *w = &r->rows[row];
	if (w->t_start < 0)
		w->t_start = build_now(r);
	if (w->state == ROW_WAITING || w->state == ROW_BLOCKED)
		w->state = ROW_RUNNING;
	w->running++;
	w->step = arena_strdup(&r->c->arena, step);
	build_plain_line(r, row, "started", step);
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
				w->t_start = build_now(r);
			if (w->state == ROW_WAITING)
				w->state = ROW_RUNNING;
			w->running++;
			w->step = arena_strdup(&r->c->arena, step);
		}
		t0 = build_now(r);
	}
	r->fin_pending = true;
	r->fin_row = row;
	r->fin_step = arena_strdup(&r->c->arena, step);
	r->fin_secs = build_now(r) - t0;
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
		build_emit(r,
		           arena_printf(&r->c->arena, "%s\n", esc_str(&r->c->arena, ESC_LOG, rec)));
		return;
	}
	if (*rec == '\0' && r->block.len == 0)
		return;
	size_t n = strlen(rec) + 1;
	if (r->block.len + n > OS_OUTPUT_MAX) { /* a step that floods: its first MiB is shown */
		r->block_dropped += n;
		return;
	}
	sb_puts(&r->block, rec);
	sb_putc(&r->block, '\n');
}

/* Splits the bytes read into records: ninja ends a status line with "\x1b[K" on a terminal,
 * with a newline elsewhere; its edges' output comes in whole lines. */
static void feed(struct run *r, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = buf[i];
		/* A record is handled in the pending buffer itself (on_record copies what it
		 * keeps), so output read does not pile up in the arena, and a record longer than
		 * OS_OUTPUT_TAIL is cut there: a step's flood costs bounded memory. */
		if (ch == '\r' || ch == '\n') {
			sb_add(&r->pending, "", 0); /* NUL-terminated, also when empty */
			if (r->pending.len || ch == '\n')
				on_record(r, r->pending.buf);
			sb_reset(&r->pending);
			continue;
		}
		if (r->pending.len < OS_OUTPUT_TAIL)
			sb_putc(&r->pending, ch);
		if (ch == 'K' && r->pending.len >= 3 &&
		    !strcmp(r->pending.buf + r->pending.len - 3, "\x1b[K") &&
		    !strncmp(r->pending.buf, STATUS_MARK, strlen(STATUS_MARK))) {
			on_record(r, r->pending.buf);
			sb_reset(&r->pending);
		}
	}
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

/* Starts ninja on a pseudo-terminal, so that it prints a status line when each edge starts
 * (it does only on a terminal); on a pipe when no terminal can be had (ninja looks at TERM
 * only on a terminal, so TERM=xterm is harmless there). */
static bool spawn_ninja(struct run *r, const char *const *argv, const char *const *env,
                        struct os_proc *proc)
{
	const char **envp = child_env(&r->c->arena, env, true);
	return os_proc_start(&r->c->diag, argv, envp, true, proc);
}

/* After ninja: rows that never finished are failed, blocked or not built. */
static void finish_rows(struct run *r, const char *ninja, int status)
{
	for (size_t i = 0; i < r->n_rows; i++) {
		struct row *w = &r->rows[i];
		if (w->state == ROW_OK || w->state == ROW_FAILED) {
			build_gha_group(r, i);
			continue;
		}
		if (status == 0) {
			row_done(r, i, ROW_OK, w->t_start < 0 ? "up to date" : "");
		} else if (w->state == ROW_WAITING &&
		           ninja_target_clean(ninja, r->g->build_dir, w->target)) {
			row_done(r, i, ROW_OK, "up to date");
		} else if (w->state != ROW_BLOCKED) {
			w->state = ROW_NOT_BUILT;
			w->t_end = build_now(r);
			build_plain_line(r, i, "not built:", "ninja stopped first");
		}
		build_gha_group(r, i);
	}
}

static int jobs_of(const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], "-j") && argv[i + 1])
			return atoi(argv[i + 1]);
	return os_cpu_count();
}

bool build_run_ninja_mode(struct cli *c, const struct plan *p, const struct build_graph *g,
                          const char *const *argv, const char *const *env, enum build_progress mode,
                          int *status)
{
	struct run r = {.c = c, .p = p, .g = g, .fin_row = SIZE_MAX};
	const char *gha = env_value(c->env, "GITHUB_ACTIONS");
	r.gha = gha && !strcmp(gha, "true");
	r.tty = !r.gha && build_want_tty(c->env, mode);
	r.jobs = jobs_of(argv);
	build_gha_init(&r);
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	rows_init(&r, argv);
	load_expected(&r);

	struct os_proc proc;
	if (!spawn_ninja(&r, argv, env, &proc)) {
		build_gha_free(&r);
		return false;
	}
	if (r.tty)
		build_tty_draw(&r);
	bool exited = false;
	char buf[8192];
	for (;;) {
		long n = os_proc_read(&proc, buf, sizeof(buf), exited ? 0 : 250);
		if (n > 0) {
			feed(&r, buf, (size_t)n);
		} else if (n == 0) {
			if (!exited)
				exited = os_proc_wait(&proc, true, status);
			break;
		} else if (exited) {
			break; /* drained */
		}
		if (!exited)
			exited = os_proc_wait(&proc, false, status);
		if (r.tty && build_now(&r) - r.last_draw >= 0.25)
			build_tty_draw(&r);
	}
	os_proc_close(&proc);
	if (r.pending.len) {
		char *rec = arena_strndup(&c->arena, sb_str(&r.pending), r.pending.len);
		on_record(&r, rec);
	}
	finish_flush(&r);
	finish_rows(&r, argv[0], *status);
	if (r.tty) {
		build_tty_draw(&r);
	} else if (r.no_work) {
		printf("ninja: no work to do\n");
	}
	fflush(stdout);
	if (r.gha)
		build_gha_summary(&r);
	for (size_t i = 0; i < r.n_rows; i++) {
		sb_release(&r.rows[i].log);
		sb_release(&r.rows[i].notes);
	}
	sb_release(&r.pending);
	sb_release(&r.block);
	build_gha_free(&r);
	return true;
}

bool build_run_ninja(struct cli *c, const struct plan *p, const struct build_graph *g,
                     const char *const *argv, const char *const *env, int *status)
{
	return build_run_ninja_mode(c, p, g, argv, env, BUILD_PROGRESS_AUTO, status);
}
