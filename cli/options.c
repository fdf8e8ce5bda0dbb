/* options.c: parses a command's argv against its option table (through getopt_long, built from
 * the table) and renders the table as the "Options:" section of the command's help. */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

/* getopt_long returns a long option as LONG_BASE + its index in the table, so that an option's
 * long and short spellings are told apart in the messages. */
enum { LONG_BASE = 256 };

static size_t table_len(const struct cli_option *t)
{
	size_t n = 0;
	while (t[n].name || t[n].short_name)
		n++;
	return n;
}

void cli_args_init(struct cli_args *p, struct cli *c, const char *cmd,
                   const struct cli_option *options, enum cli_args_order order, int argc,
                   char **argv)
{
	size_t n = table_len(options);
	struct option *lo = arena_calloc(&c->arena, n + 1, sizeof *lo);
	char *so = arena_calloc(&c->arena, 3 * n + 3, 1);
	size_t nl = 0, ns = 0;
	/* '+': stop at the first operand; '-': return each operand in turn; ':' (after either):
	 * a missing value is told apart from an unknown option. */
	if (order == CLI_ARGS_LAST)
		so[ns++] = '+';
	else if (order == CLI_ARGS_IN_TURN)
		so[ns++] = '-';
	so[ns++] = ':';
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &options[i];
		if (o->name)
			lo[nl++] =
			    (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
			                    LONG_BASE + (int)i};
		if (o->short_name) {
			so[ns++] = (char)o->short_name;
			if (o->arg)
				so[ns++] = ':';
		}
	}
	*p = (struct cli_args){.c = c,
	                       .cmd = cmd,
	                       .options = options,
	                       .argc = argc,
	                       .argv = argv,
	                       .next = argc,
	                       .longopts_ = lo,
	                       .shortopts_ = so};
	optind = 0; /* glibc: a full reset, the optstring's '+' or '-' read again */
	opterr = 0;
}

static const struct cli_option *by_short(const struct cli_option *t, int ch)
{
	for (; t->name || t->short_name; t++)
		if (t->short_name == ch)
			return t;
	return NULL;
}

/* The spelling of option o in messages: "--name" when given long (or it has no short). */
static const char *spelling(struct cli_args *p, const struct cli_option *o, bool as_long)
{
	if (as_long || !o->short_name)
		return arena_printf(&p->c->arena, "--%s", o->name);
	return arena_printf(&p->c->arena, "-%c", o->short_name);
}

static int usage_error(struct cli_args *p, const char *hint)
{
	struct diag *d = &p->c->diag;
	if (hint)
		diag_msg(d, DIAG_HINT, "did you mean '--%s'?", hint);
	else if (p->cmd)
		diag_msg(d, DIAG_HINT, "see 'cuwheel %s --help'", p->cmd);
	else
		diag_msg(d, DIAG_HINT, "see 'cuwheel --help'");
	return CLI_ARG_ERROR;
}

/* An unknown long option ("--jsn", "--jsn=1", or an ambiguous prefix): named without its value,
 * with the closest long name as the hint. */
static int unknown_long(struct cli_args *p, const char *word)
{
	const char *name = word + strspn(word, "-");
	char *bare = arena_strndup(&p->c->arena, name, strcspn(name, "="));
	size_t n = table_len(p->options), nn = 0;
	const char **names = arena_calloc(&p->c->arena, n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		if (p->options[i].name)
			names[nn++] = p->options[i].name;
	diag_msg(&p->c->diag, DIAG_ERROR, "unknown option '--%s'", bare);
	return usage_error(p, *bare ? diag_did_you_mean(bare, names, nn) : NULL);
}

int cli_args_next(struct cli_args *p)
{
	optopt = 0;
	int ch = getopt_long(p->argc, p->argv, p->shortopts_, p->longopts_, NULL);
	p->value = optarg;
	if (ch == -1) {
		p->next = optind;
		return CLI_ARG_END;
	}
	if (ch == 1)
		return CLI_ARG_OPERAND;
	struct diag *d = &p->c->diag;
	if (ch >= LONG_BASE) {
		const struct cli_option *o = &p->options[ch - LONG_BASE];
		p->given = spelling(p, o, true);
		return o->id;
	}
	if (ch != ':' && ch != '?') {
		const struct cli_option *o = by_short(p->options, ch);
		p->given = spelling(p, o, false);
		return o->id;
	}
	/* glibc sets optopt to the long option's val (a missing value, or a value given to a
	 * flag), to the short option's letter, or to 0 for an unknown long option. */
	const struct cli_option *o = optopt >= LONG_BASE ? &p->options[optopt - LONG_BASE]
	                             : optopt > 0        ? by_short(p->options, optopt)
	                                                 : NULL;
	if (ch == ':' && o) {
		diag_msg(d, DIAG_ERROR, "option '%s' needs a value",
		         spelling(p, o, optopt >= LONG_BASE));
		return usage_error(p, NULL);
	}
	if (o) {
		diag_msg(d, DIAG_ERROR, "option '%s' takes no value", spelling(p, o, true));
		return usage_error(p, NULL);
	}
	if (optopt > 0) {
		diag_msg(d, DIAG_ERROR, "unknown option '-%c'", optopt);
		return usage_error(p, NULL);
	}
	return unknown_long(p, p->argv[optind - 1]);
}

enum { HELP_COLUMN_MAX = 22 };

/* "-j, --jobs N", "-j N", "--json" into buf; returns its length. */
static size_t option_spec(const struct cli_option *o, char *buf, size_t size)
{
	int n;
	const char *sep = o->arg ? " " : "", *arg = o->arg ? o->arg : "";
	if (o->short_name && o->name)
		n = snprintf(buf, size, "-%c, --%s%s%s", o->short_name, o->name, sep, arg);
	else if (o->short_name)
		n = snprintf(buf, size, "-%c%s%s", o->short_name, sep, arg);
	else
		n = snprintf(buf, size, "--%s%s%s", o->name, sep, arg);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static void print_table(FILE *f, const struct cli_option *t)
{
	char spec[128];
	size_t width = 0;
	for (const struct cli_option *o = t; o->name || o->short_name; o++) {
		size_t w = option_spec(o, spec, sizeof spec);
		if (w <= HELP_COLUMN_MAX && w > width)
			width = w;
	}
	int col = 2 + (int)width + 2;
	for (const struct cli_option *o = t; o->name || o->short_name; o++) {
		size_t w = option_spec(o, spec, sizeof spec);
		fprintf(f, "  %s", spec);
		/* A spec wider than the column stands on its own line. */
		if (w > width)
			fprintf(f, "\n%*s", col, "");
		else
			fprintf(f, "%*s", (int)(width - w) + 2, "");
		if (!*o->help)
			fputc('\n', f);
		for (const char *line = o->help; *line;) {
			size_t len = strcspn(line, "\n");
			fprintf(f, "%.*s\n", (int)len, line);
			line += len;
			if (*line == '\n' && *++line)
				fprintf(f, "%*s", col, "");
		}
	}
}

void cli_help_print_options(FILE *f, const char *cmd, const struct cli_help *help)
{
	for (size_t i = 0; i < CLI_HELP_GROUPS && help->groups[i].options; i++) {
		const struct cli_option_group *g = &help->groups[i];
		if (!g->options->name && !g->options->short_name)
			continue;
		if (g->sub)
			fprintf(f, "\nOptions of 'cuwheel %s %s':\n", cmd, g->sub);
		else
			fprintf(f, "\nOptions:\n");
		print_table(f, g->options);
	}
}
