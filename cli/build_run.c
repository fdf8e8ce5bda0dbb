/* build_run.c: runs ninja in a pseudo-terminal (a pipe when none can be had), reads its status
 * lines and the output of its steps, and keeps in the build-result model what they say of its
 * rows (one per kernel archive and per cell asked for): states, the step running or failed,
 * and their times on ninja's own clock. build_view.c shows the rows; build_gha.c adds GitHub
 * Actions' parts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-run.h"
#include "base/os-sys.h"
#include "cli/build_internal.h"
#include "report/ninja_log.h"

extern char **environ;

/* A row ends at t (ninja's clock): ok or failed; a failed archive blocks its waiting cells. */
static void row_done(struct run *r, double t, size_t row, enum result_state st, const char *detail)
{
	struct result_row *w = &r->m->rows[row];
	w->state = st;
	w->t_end = t;
	if (st == RESULT_OK)
		w->step = NULL; /* the model keeps the step running or failed */
	build_plain_line(r, t, row, st == RESULT_OK ? "ok" : "FAILED", detail);
	if (st == RESULT_FAILED && w->is_archive) {
		for (size_t i = 0; i < r->m->n_rows; i++) {
			struct result_row *x = &r->m->rows[i];
			if (x->shown && x->archive_row == row && x->state == RESULT_WAITING) {
				x->state = RESULT_BLOCKED;
				if (!r->tty)
					build_plain_line(
					    r, t, i, "blocked:",
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
	double t = r->fin_t;
	struct result_row *rows = r->m->rows;
	const char *detail =
	    arena_printf(a, "%s (%s)", r->fin_step, build_fmt_secs(a, r->fin_secs));
	if (row != SIZE_MAX && r->views[row].running > 0)
		r->views[row].running--;
	if (r->fin_failed && row != SIZE_MAX) {
		rows[row].step = r->fin_step;
		if (rows[row].state != RESULT_FAILED)
			row_done(r, t, row, RESULT_FAILED, detail);
		else
			build_plain_line(r, t, row, "FAILED", detail);
	} else {
		build_plain_line(r, t, row, r->fin_failed ? "FAILED" : "", detail);
	}
	if (r->block.len) {
		const char *name = row == SIZE_MAX ? "ninja" : rows[row].name;
		struct strbuf sb = {0};
		if (r->tty)
			sb_printf(&sb, "%s\x1b[1m%s\x1b[0m | %s:\n",
			          r->fin_failed ? "\x1b[31;1mFAILED\x1b[0m " : "", name,
			          r->fin_step);
		build_put_indented(&sb, text, "    ");
		if (r->gha && row != SIZE_MAX) {
			sb_puts(&r->views[row].log, sb_str(&sb));
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
	struct result_row *w = &rows[row];
	if (w->state == RESULT_RUNNING && r->views[row].running == 0 &&
	    !strncmp(r->fin_step, w->last_step, strlen(w->last_step))) {
		row_done(r, t, row, RESULT_OK, build_fmt_secs(a, t - w->t_start));
		build_gha_group(r, row);
	}
}

/* A row's step starts at t: the row runs it. */
static void row_start(struct run *r, size_t row, const char *step, double t)
{
	struct result_row *w = &r->m->rows[row];
	if (w->t_start < 0)
		w->t_start = t;
	if (w->state == RESULT_WAITING || w->state == RESULT_BLOCKED)
		w->state = RESULT_RUNNING;
	r->views[row].running++;
	w->step = arena_strdup(&r->c->arena, step);
}

static void on_start(struct run *r, const char *desc, double t)
{
	const char *step;
	size_t row = result_row_of_desc(r->m, desc, &step);
	if (r->n_edges == r->cap_edges) {
		size_t cap = r->cap_edges ? 2 * r->cap_edges : 16;
		r->edges =
		    arena_realloc(&r->c->arena, r->edges, r->cap_edges, cap, sizeof(*r->edges));
		r->cap_edges = cap;
	}
	r->edges[r->n_edges++] =
	    (struct edge){.desc = arena_strdup(&r->c->arena, desc), .row = row, .t0 = t};
	if (row == SIZE_MAX) {
		build_plain_line(r, t, row, "started", desc);
		return;
	}
	row_start(r, row, step, t);
	build_plain_line(r, t, row, "started", step);
}

static void on_finish(struct run *r, const char *desc, double t)
{
	const char *step;
	size_t row = result_row_of_desc(r->m, desc, &step);
	double t0 = -1;
	for (size_t i = 0; i < r->n_edges; i++) {
		if (!strcmp(r->edges[i].desc, desc)) {
			t0 = r->edges[i].t0;
			r->edges[i] = r->edges[--r->n_edges];
			break;
		}
	}
	if (t0 < 0) { /* no start line (ninja without a terminal): started and done now */
		if (row != SIZE_MAX)
			row_start(r, row, step, t);
		t0 = t;
	}
	r->fin_pending = true;
	r->fin_reopen = false;
	r->fin_row = row;
	r->fin_step = arena_strdup(&r->c->arena, step);
	r->fin_secs = t - t0;
	r->fin_t = t;
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
		double at;
		int off = 0;
		if (sscanf(rec + strlen(STATUS_MARK), "%ld %ld %ld %lf@@ %n", &s, &f, &t, &at,
		           &off) != 4 ||
		    off == 0)
			return;
		const char *desc = rec + strlen(STATUS_MARK) + off;
		finish_flush(r);
		r->fin_reopen = false;
		r->total = t;
		if (f > r->finished) {
			r->finished = f;
			r->started = s;
			on_finish(r, desc, at);
		} else if (s > r->started) {
			r->started = s;
			on_start(r, desc, at);
		}
		return;
	}
	/* The edge shown when ninja went quiet failed after all, or has output: it is not done. */
	if (r->fin_reopen && r->block.len == 0 && !r->fin_pending && strncmp(rec, "ninja: ", 7)) {
		r->fin_reopen = false;
		r->fin_pending = true;
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
		r->fin_reopen = false;
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

/* After ninja: shown rows that never finished are ok (ninja has nothing left to do for them),
 * failed, blocked or not built. */
static void finish_rows(struct run *r, const char *ninja, int status)
{
	double t = build_now(r);
	for (size_t i = 0; i < r->m->n_rows; i++) {
		struct result_row *w = &r->m->rows[i];
		if (!w->shown)
			continue;
		if (w->state == RESULT_OK || w->state == RESULT_FAILED) {
			build_gha_group(r, i);
			continue;
		}
		if (status == 0) {
			row_done(r, t, i, RESULT_OK, w->t_start < 0 ? "up to date" : "");
		} else if (w->state != RESULT_BLOCKED &&
		           ninja_target_clean(ninja, r->m->build_dir, w->target)) {
			row_done(r, t, i, RESULT_OK, w->t_start < 0 ? "up to date" : "");
		} else if (w->state != RESULT_BLOCKED) {
			w->state = RESULT_NOT_BUILT;
			w->t_end = t;
			build_plain_line(r, t, i, "not built:", "ninja stopped first");
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

/* Reads ninja's output until it exits and its pseudo-terminal is drained. An edge's finish is
 * shown when ninja goes quiet after it, not only when the next line comes (its output, or a
 * FAILED line, comes with the status line, in one piece). */
static void read_ninja(struct run *r, struct os_proc *proc, int *status)
{
	bool exited = false;
	char buf[8192];
	for (;;) {
		long n = os_proc_read(proc, buf, sizeof(buf), exited ? 0 : 250);
		if (n > 0) {
			feed(r, buf, (size_t)n);
		} else if (n == 0) {
			if (!exited)
				exited = os_proc_wait(proc, true, status);
			break;
		} else if (exited) {
			break; /* drained */
		} else if (r->fin_pending && r->pending.len == 0) {
			finish_flush(r);
			r->fin_reopen = true;
		}
		if (!exited)
			exited = os_proc_wait(proc, false, status);
		if (r->tty && build_now(r) - r->last_draw >= 0.25)
			build_tty_draw(r);
	}
}

bool build_run_ninja(struct cli *c, const struct plan *p, struct build_result *m,
                     const char *const *argv, const char *const *env, enum build_progress mode,
                     int *status)
{
	struct run r = {.c = c, .p = p, .m = m, .fin_row = SIZE_MAX};
	const char *gha = env_value(c->env, "GITHUB_ACTIONS");
	r.gha = gha && !strcmp(gha, "true");
	r.tty = !r.gha && build_want_tty(c->env, mode);
	r.jobs = jobs_of(argv);
	r.views = arena_calloc(&c->arena, m->n_rows + 1, sizeof(*r.views));
	build_gha_init(&r);
	clock_gettime(CLOCK_MONOTONIC, &r.t0);

	struct os_proc proc;
	if (!spawn_ninja(&r, argv, env, &proc)) {
		build_gha_free(&r);
		return false;
	}
	if (r.tty)
		build_tty_draw(&r);
	read_ninja(&r, &proc, status);
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
	for (size_t i = 0; i < m->n_rows; i++) {
		sb_release(&r.views[i].log);
		sb_release(&r.views[i].notes);
	}
	sb_release(&r.pending);
	sb_release(&r.block);
	build_gha_free(&r);
	return true;
}
