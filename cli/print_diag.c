/* print_diag.c: renders diagnostics for a person: location, message, source line, caret. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

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

void cli_print_diag(void *user, const struct diag_msg *m)
{
	struct cli *c = user;
	const char *on = c && c->color ? level_color(m->level) : "";
	const char *off = c && c->color ? "\033[0m" : "";
	if (m->level == DIAG_HINT) {
		fprintf(stderr, "  %shint%s: %s\n", on, off, m->text);
		return;
	}
	fputs("cuwheel: ", stderr);
	if (m->path && m->line > 0)
		fprintf(stderr, "%s:%d:%d: ", m->path, m->line, m->col > 0 ? m->col : 1);
	else if (m->path)
		fprintf(stderr, "%s: ", m->path);
	fprintf(stderr, "%s%s%s: %s\n", on, level_name(m->level), off, m->text);
	if (m->src && m->line > 0) {
		size_t len;
		const char *line = source_line(m->src, m->line, &len);
		if (len > 200)
			len = 200;
		fprintf(stderr, "%5d | %.*s\n      | ", m->line, (int)len, line);
		/* Put the caret under the column, expanding tabs as the line above does. */
		int col = 1;
		for (size_t i = 0; i < len && col < m->col; i++) {
			unsigned char ch = (unsigned char)line[i];
			if ((ch & 0xC0) == 0x80)
				continue;
			fputc(ch == '\t' ? '\t' : ' ', stderr);
			col++;
		}
		fprintf(stderr, "%s^%s\n", on, off);
	}
}

int cli_usage(struct cli *c, const char *cmd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cuwheel: %serror%s: %s\n", c->color ? "\033[1;31m" : "",
		c->color ? "\033[0m" : "", buf);
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
