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

const char *build_state_word(const struct row *w)
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
	double t = build_now(r);
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
		char *line =
		    arena_printf(a, "  %-*s  %s%-9s\x1b[0m  %7s  %s", (int)wid, w->name, color,
		                 build_state_word(w), w->t_start < 0 ? "" : build_fmt_secs(a, el),
		                 step ? step : "");
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

/* Plain mode: one timestamped line per event, "[row] step" like ninja's own lines (a step's
 * end) or "[row] started step", "[row] ok", "[row] FAILED step"; under GitHub Actions into
 * the row's group. */
void build_plain_line(struct run *r, size_t row, const char *what, const char *detail)
{
	if (r->tty)
		return;
	struct arena *a = &r->c->arena;
	char *line = arena_printf(a, "%7.1fs [%s] %s%s%s\n", build_now(r),
	                          row == SIZE_MAX ? "ninja" : r->rows[row].name, what,
	                          *what && detail && *detail ? " " : "", detail ? detail : "");
	if (r->gha && row != SIZE_MAX)
		sb_puts(&r->rows[row].log, line);
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
