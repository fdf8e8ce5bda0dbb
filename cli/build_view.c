/* build_view.c: build progress as the user sees it: rows redrawn in place on a terminal, one
 * timestamped line per event elsewhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "cli/build_internal.h"

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

double build_now(const struct run *r)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) / 1e9;
}

const char *build_fmt_secs(struct arena *a, double s)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		return arena_printf(a, "%.1fs", s);
	return arena_printf(a, "%dm%02ds", (int)s / 60, (int)s % 60);
}

/* Remaining work from the previous build's timings, spread over the jobs; <0 when unknown.
 * When ninja runs far fewer steps than the previous build knew (an incremental build), the
 * rows not started yet are assumed up to date. */
static double eta(const struct run *r, double t)
{
	const struct build_result *m = r->m;
	double left = 0;
	size_t known = 0;
	for (size_t i = 0; i < m->n_rows; i++)
		known += m->rows[i].shown ? m->rows[i].n_expected : 0;
	if (known == 0)
		return -1;
	bool full = (double)r->total >= 0.8 * (double)known;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (!w->shown)
			continue;
		if (w->state == RESULT_RUNNING) {
			double rest = w->expected - (t - w->t_start);
			left += rest > 0 ? rest : 0;
		} else if (w->state == RESULT_WAITING && full) {
			left += w->expected;
		}
	}
	return left / (r->jobs > 0 ? r->jobs : 1);
}

/* Writes text with every line indented, for a block under its row. */
void build_put_indented(struct strbuf *sb, const char *text, const char *indent)
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

void build_tty_draw(struct run *r)
{
	struct arena *a = &r->c->arena;
	const struct build_result *m = r->m;
	double t = build_now(r);
	int height, width = term_size(&height);
	size_t wid = 4, n_rows = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (!m->rows[i].shown)
			continue;
		n_rows++;
		if (strlen(m->rows[i].name) > wid)
			wid = strlen(m->rows[i].name);
	}
	/* When the rows do not fit, show the busy and failed ones and count the others. */
	bool all = (int)n_rows + 2 < height;
	struct strbuf sb = {0};
	if (r->drawn > 0)
		sb_printf(&sb, "\x1b[%dF", r->drawn);
	int lines = 0;
	size_t hidden = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (!w->shown)
			continue;
		if (!all && (w->state == RESULT_WAITING || w->state == RESULT_OK) &&
		    lines + 3 < height) {
			hidden++;
			continue;
		}
		const char *color = w->state == RESULT_OK        ? "\x1b[32m"
		                    : w->state == RESULT_FAILED  ? "\x1b[31;1m"
		                    : w->state == RESULT_RUNNING ? "\x1b[33m"
		                                                 : "\x1b[2m";
		/* Times on ninja's clock; a running row's end is now. */
		double el = w->t_start < 0 ? 0 : (w->t_end >= 0 ? w->t_end : t) - w->t_start;
		const char *step =
		    w->state == RESULT_RUNNING || w->state == RESULT_FAILED ? w->step : "";
		if (w->state == RESULT_BLOCKED)
			step = "its kernel archive failed";
		char *line =
		    arena_printf(a, "  %-*s  %s%-9s\x1b[0m  %7s  %s", (int)wid, w->name, color,
		                 result_state_word(w), w->t_start < 0 ? "" : build_fmt_secs(a, el),
		                 step ? step : "");
		put_line(&sb, line, width);
		lines++;
	}
	size_t ok = 0, failed = 0, busy = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (!m->rows[i].shown)
			continue;
		ok += m->rows[i].state == RESULT_OK;
		failed += m->rows[i].state == RESULT_FAILED;
		busy += m->rows[i].state == RESULT_RUNNING;
	}
	double e = eta(r, t);
	char *sum =
	    arena_printf(a,
	                 "\x1b[1m[%ld/%ld steps]\x1b[0m %zu/%zu done, %zu running%s%s, "
	                 "%s elapsed%s%s%s",
	                 r->finished, r->total, ok, n_rows, busy,
	                 failed ? arena_printf(a, ", \x1b[31m%zu failed\x1b[0m", failed) : "",
	                 hidden ? arena_printf(a, " (%zu not shown)", hidden) : "",
	                 build_fmt_secs(a, t), e >= 0 && busy ? ", about " : "",
	                 e >= 0 && busy ? build_fmt_secs(a, e) : "", e >= 0 && busy ? " left" : "");
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
void build_emit(struct run *r, const char *text)
{
	if (r->tty) {
		tty_clear(r);
		fputs(text, stdout);
		build_tty_draw(r);
	} else {
		fputs(text, stdout);
		fflush(stdout);
	}
}

/* Plain mode: one line per event, stamped with its time on ninja's clock (the step's own start
 * or end, however late ninja's line came): "[row] step" like ninja's own lines (a step's end)
 * or "[row] started step", "[row] ok", "[row] FAILED step"; under GitHub Actions into the
 * row's group. */
void build_plain_line(struct run *r, double t, size_t row, const char *what, const char *detail)
{
	if (r->tty)
		return;
	struct arena *a = &r->c->arena;
	char *line = arena_printf(a, "%7.1fs [%s] %s%s%s\n", t,
	                          row == SIZE_MAX ? "ninja" : r->m->rows[row].name, what,
	                          *what && detail && *detail ? " " : "", detail ? detail : "");
	if (r->gha && row != SIZE_MAX)
		sb_puts(&r->views[row].log, line);
	else
		build_emit(r, line);
}

bool build_want_tty(const char *const *env, enum build_progress mode)
{
	if (mode != BUILD_PROGRESS_AUTO)
		return mode == BUILD_PROGRESS_TTY;
	const char *term = env_value(env, "TERM");
	return isatty(STDOUT_FILENO) && !env_nonempty(env, "NO_COLOR") &&
	       !env_nonempty(env, "CI") && !(term && !strcmp(term, "dumb"));
}
