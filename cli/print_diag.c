/* print_diag.c: renders diagnostics for a person: location, message, source line, caret. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "cli/cli.h"
#include "packager/audit.h"

static const char *level_name(enum diag_level l)
{
	switch (l) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	case DIAG_NOTE:
		return "note";
	case DIAG_HINT:
		return "hint";
	}
	return "error";
}

static const char *level_color(enum diag_level l)
{
	switch (l) {
	case DIAG_ERROR:
		return "\033[1;31m";
	case DIAG_WARNING:
		return "\033[1;35m";
	case DIAG_NOTE:
		return "\033[1;36m";
	case DIAG_HINT:
		return "\033[1;32m";
	}
	return "";
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80             ? 1
	             : (p[0] & 0xE0) == 0xC0 ? 2
	             : (p[0] & 0xF0) == 0xE0 ? 3
	             : (p[0] & 0xF8) == 0xF0 ? 4
	                                     : 0;
	if (len == 0 || len > n || (len == 2 && p[0] < 0xC2))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

enum { SHOW_WIDTH = 160 };

/* Prints the source line and a caret under the column. A long line is shown as a window of
 * SHOW_WIDTH characters around the column; control bytes and invalid UTF-8 print as '?'. */
static void print_source_line(const struct source *src, int lineno, int col, const char *on,
                              const char *off)
{
	size_t len;
	const unsigned char *line = (const unsigned char *)source_line(src, lineno, &len);
	/* Characters (not bytes) before the window's start. */
	size_t first = col > SHOW_WIDTH / 2 ? (size_t)col - SHOW_WIDTH / 2 : 1;
	size_t ch = 1, i = 0;
	while (i < len && ch < first) {
		size_t n = utf8_len(line + i, len - i);
		i += n ? n : 1;
		ch++;
	}
	fprintf(stderr, "%5d | %s", lineno, i > 0 ? "..." : "");
	/* The caret line repeats each tab, so it lines up whatever the terminal's tab width. */
	char fill[SHOW_WIDTH + 4];
	size_t caret = 0, shown = 0;
	if (i > 0)
		for (; caret < 3; caret++)
			fill[caret] = ' ';
	for (; i < len && shown < SHOW_WIDTH; shown++, ch++) {
		size_t n = utf8_len(line + i, len - i);
		if (n == 0 || (n == 1 && line[i] < 0x20 && line[i] != '\t') || line[i] == 0x7F) {
			fputc('?', stderr);
			i += n ? n : 1;
		} else {
			fwrite(line + i, 1, n, stderr);
			i += n;
		}
		if (ch < (size_t)col)
			fill[caret++] = line[i - (n ? n : 1)] == '\t' ? '\t' : ' ';
	}
	fprintf(stderr, "%s\n      | ", i < len ? "..." : "");
	fwrite(fill, 1, caret, stderr);
	fprintf(stderr, "%s^%s\n", on, off);
}

/* Every message is escaped here, whatever its call site put in it: the path as one value,
 * the text as lines (an sdist member, a wheel member, a probe's or a compiler's words inside
 * it can neither steer the terminal nor start a workflow command). The call sites escape the
 * values they splice in as well, so a message reads the same on every sink. */
void cli_print_diag(void *user, const struct diag_msg *m)
{
	struct cli *c = user;
	const char *on = c && c->color ? level_color(m->level) : "";
	const char *off = c && c->color ? "\033[0m" : "";
	struct arena a = {0};
	const char *text = esc_str(&a, ESC_LOG, m->text);
	const char *path = m->path ? esc_str(&a, ESC_TERM, m->path) : NULL;
	if (m->level == DIAG_HINT) {
		fprintf(stderr, "  %shint%s: %s\n", on, off, text);
		arena_free(&a);
		return;
	}
	fputs("cuwheel: ", stderr);
	if (path && m->line > 0)
		fprintf(stderr, "%s:%d:%d: ", path, m->line, m->col > 0 ? m->col : 1);
	else if (path)
		fprintf(stderr, "%s: ", path);
	fprintf(stderr, "%s%s%s: %s\n", on, level_name(m->level), off, text);
	if (m->src && m->line > 0)
		print_source_line(m->src, m->line, m->col, on, off);
	arena_free(&a);
}

int cli_usage(struct cli *c, const char *cmd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	struct arena a = {0};
	fprintf(stderr, "cuwheel: %serror%s: %s\n", c->color ? "\033[1;31m" : "",
	        c->color ? "\033[0m" : "", esc_str(&a, ESC_LOG, buf));
	arena_free(&a);
	if (cmd)
		fprintf(stderr, "  hint: see 'cuwheel %s --help'\n", cmd);
	else
		fprintf(stderr, "  hint: see 'cuwheel --help'\n");
	return CLI_USAGE;
}

bool cli_parse_int(struct cli *c, const char *cmd, const char *opt, const char *val, int *out)
{
	char *end;
	long v = strtol(val, &end, 10);
	if (!*val || *end || v < 1 || v > 100000) {
		cli_usage(c, cmd, "%s expects a positive integer, got '%s'", opt, val);
		return false;
	}
	*out = (int)v;
	return true;
}

void cli_report_findings(struct cli *c, const struct audit_result *r)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct audit_finding *f = &r->findings[i];
		if (f->level == AUDIT_NOTE)
			continue;
		const char *where = f->member
		                        ? arena_printf(&c->arena, "%s: %s", r->wheel,
		                                       esc_str(&c->arena, ESC_TERM, f->member))
		                        : r->wheel;
		diag_path(&c->diag, f->level == AUDIT_ERROR ? DIAG_ERROR : DIAG_WARNING, where,
		          "%s", f->message);
		if (f->hint)
			diag_msg(&c->diag, DIAG_HINT, "%s", f->hint);
	}
}

/* Forwards a message to the command's sink with errors told as warnings. */
static void emit_as_warning(void *user, const struct diag_msg *m)
{
	struct cli *c = user;
	struct diag_msg w = *m;
	if (w.level == DIAG_ERROR)
		w.level = DIAG_WARNING;
	if (w.level == DIAG_WARNING)
		c->diag.warnings++;
	if (c->diag.emit)
		c->diag.emit(c->diag.user, &w);
}

struct diag cli_diag_as_warnings(struct cli *c)
{
	return (struct diag){.emit = emit_as_warning, .user = c};
}
