/* testcmd.c: {project} and {wheel} in the test command, as environment variable references
 * (see testcmd.h). A small scanner of POSIX sh quoting finds each placeholder's context. */
#include "matrix/testcmd.h"

#include <string.h>

#include "base/strbuf.h"

struct scan {
	struct arena *a;
	const char *s;
	struct strbuf out;
	const char *why; /* the first refusal */
	size_t at;
	bool heredoc;    /* an unquoted << was seen */
	size_t first_ph; /* offset of the first placeholder, or SIZE_MAX */
};

static const struct {
	const char *ph, *ref;
} placeholders[] = {
    {"{project}", "\"$" TESTCMD_PROJECT_VAR "\""},
    {"{wheel}", "\"$" TESTCMD_WHEEL_VAR "\""},
};

/* The placeholder starting at i, or -1. */
static int placeholder_at(const char *s, size_t i)
{
	for (int k = 0; k < 2; k++)
		if (!strncmp(s + i, placeholders[k].ph, strlen(placeholders[k].ph)))
			return k;
	return -1;
}

static void refuse(struct scan *sc, size_t i, int k, const char *context)
{
	if (sc->why)
		return;
	sc->why = arena_printf(sc->a,
	                       "%s stands %s: only an unquoted placeholder reaches the command as "
	                       "one plain argument, never as code",
	                       placeholders[k].ph, context);
	sc->at = i;
}

/* Copies s[i] (or handles a placeholder there) in a context where placeholders are refused for
 * `context`; returns the next index. */
static size_t quoted_char(struct scan *sc, size_t i, const char *context)
{
	int k = placeholder_at(sc->s, i);
	if (k >= 0) {
		if (sc->first_ph == (size_t)-1)
			sc->first_ph = i;
		refuse(sc, i, k, context);
	}
	sb_putc(&sc->out, sc->s[i]);
	return i + 1;
}

static size_t scan_cmd(struct scan *sc, size_t i, char closer, const char *quoted);

/* From after an opening `, to after the closing one. */
static size_t scan_backtick(struct scan *sc, size_t i)
{
	while (sc->s[i] && sc->s[i] != '`') {
		if (sc->s[i] == '\\' && sc->s[i + 1]) {
			sb_putc(&sc->out, sc->s[i++]);
		}
		i = quoted_char(sc, i, "inside `...`");
	}
	if (sc->s[i])
		sb_putc(&sc->out, sc->s[i++]);
	return i;
}

/* From after "$((" or "${" to after its closer, placeholders refused. */
static size_t scan_nested(struct scan *sc, size_t i, char open, char close, int depth,
                          const char *context)
{
	while (sc->s[i] && depth > 0) {
		if (sc->s[i] == open)
			depth++;
		else if (sc->s[i] == close)
			depth--;
		i = quoted_char(sc, i, context);
	}
	return i;
}

/* From after an opening " to after the closing one. */
static size_t scan_dq(struct scan *sc, size_t i)
{
	while (sc->s[i] && sc->s[i] != '"') {
		if (sc->s[i] == '\\' && sc->s[i + 1]) {
			sb_putc(&sc->out, sc->s[i++]);
			i = quoted_char(sc, i, "inside \"...\"");
		} else if (sc->s[i] == '`') {
			sb_putc(&sc->out, sc->s[i++]);
			i = scan_backtick(sc, i);
		} else if (sc->s[i] == '$' && sc->s[i + 1] == '(') {
			sb_puts(&sc->out, "$(");
			i = scan_cmd(sc, i + 2, ')', "inside \"...\"");
		} else {
			i = quoted_char(sc, i, "inside \"...\"");
		}
	}
	if (sc->s[i])
		sb_putc(&sc->out, sc->s[i++]);
	return i;
}

/* Shell command text from i until closer (')' for $(...), 0 for the end); quoted names the
 * enclosing quotes when the command is nested in them (placeholders refused), else NULL.
 * Returns the index after the closer. */
static size_t scan_cmd(struct scan *sc, size_t i, char closer, const char *quoted)
{
	const char *s = sc->s;
	int parens = 0;
	bool word_start = true;
	while (s[i]) {
		char c = s[i];
		int k = placeholder_at(s, i);
		if (k >= 0) {
			if (sc->first_ph == (size_t)-1)
				sc->first_ph = i;
			if (quoted)
				refuse(sc, i, k, quoted);
			sb_puts(&sc->out, placeholders[k].ref);
			i += strlen(placeholders[k].ph);
			word_start = false;
			continue;
		}
		if (c == closer && parens == 0) {
			sb_putc(&sc->out, c);
			return i + 1;
		}
		bool was_start = word_start;
		word_start = c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
		             c == '|' || c == '(' || c == ')';
		if (c == '\\' && s[i + 1]) {
			sb_putc(&sc->out, c);
			i = quoted_char(sc, i + 1, "after a backslash");
		} else if (c == '\'') {
			sb_putc(&sc->out, s[i++]);
			while (s[i] && s[i] != '\'')
				i = quoted_char(sc, i, "inside '...'");
			if (s[i])
				sb_putc(&sc->out, s[i++]);
		} else if (c == '"') {
			sb_putc(&sc->out, s[i++]);
			i = scan_dq(sc, i);
		} else if (c == '`') {
			sb_putc(&sc->out, s[i++]);
			i = scan_backtick(sc, i);
		} else if (c == '$' && s[i + 1] == '(' && s[i + 2] == '(') {
			sb_puts(&sc->out, "$((");
			i = scan_nested(sc, i + 3, '(', ')', 2, "inside $((...))");
		} else if (c == '$' && s[i + 1] == '(') {
			sb_puts(&sc->out, "$(");
			i = scan_cmd(sc, i + 2, ')', quoted);
		} else if (c == '$' && s[i + 1] == '{') {
			sb_puts(&sc->out, "${");
			i = scan_nested(sc, i + 2, '{', '}', 1, "inside ${...}");
		} else if (c == '#' && was_start) {
			while (s[i] && s[i] != '\n')
				sb_putc(&sc->out, s[i++]);
		} else {
			if (c == '<' && s[i + 1] == '<')
				sc->heredoc = true;
			if (c == '(')
				parens++;
			else if (c == ')' && parens > 0)
				parens--;
			sb_putc(&sc->out, s[i++]);
		}
	}
	return i;
}

char *testcmd_expand(struct arena *a, const char *command, const char **why, size_t *at)
{
	*why = NULL;
	*at = 0;
	if (!strstr(command, "{project}") && !strstr(command, "{wheel}"))
		return (char *)command;
	struct scan sc = {.a = a, .s = command, .first_ph = (size_t)-1};
	scan_cmd(&sc, 0, 0, NULL);
	if (!sc.why && sc.heredoc && sc.first_ph != (size_t)-1) {
		int k = placeholder_at(command, sc.first_ph);
		sc.why =
		    arena_printf(a,
		                 "%s stands in a command with a here-document (<<), whose body "
		                 "the shell expands as text",
		                 placeholders[k].ph);
		sc.at = sc.first_ph;
	}
	if (sc.why) {
		sb_release(&sc.out);
		*why = sc.why;
		*at = sc.at;
		return NULL;
	}
	return sb_to_arena(&sc.out, a);
}
