/* ninja.c: escaping for build.ninja. */
#include "standards/ninja.h"

#include <ctype.h>
#include <string.h>

#include "base/arena.h"

void ninja_path(struct strbuf *sb, const char *path)
{
	for (const char *p = path; *p; p++) {
		if (*p == ' ' || *p == ':' || *p == '$')
			sb_putc(sb, '$');
		sb_putc(sb, *p);
	}
}

/* Characters sh reads as themselves. */
#define SHELL_PLAIN                                                                                \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"                           \
	"-_./=:,+@%^"

bool ninja_shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr(SHELL_PLAIN, *p))
			return false;
	return true;
}

void ninja_arg(struct strbuf *sb, const char *arg)
{
	if (ninja_shell_plain(arg)) {
		sb_puts(sb, arg);
		return;
	}
	sb_putc(sb, '\'');
	for (const char *p = arg; *p; p++) {
		if (*p == '\'')
			sb_puts(sb, "'\\''");
		else if (*p == '$')
			sb_puts(sb, "$$");
		else
			sb_putc(sb, *p);
	}
	sb_putc(sb, '\'');
}

void ninja_paths(struct strbuf *sb, const struct strv *paths)
{
	for (size_t i = 0; i < paths->n; i++) {
		sb_putc(sb, ' ');
		ninja_path(sb, paths->v[i]);
	}
}

bool ninja_path_ok(const char *path)
{
	return !strchr(path, '\n') && !strchr(path, '\r');
}

/* Bytes that no route can carry: ninja has no escape for a line break, and a control character
 * in a flag is a mistake, never an intent. */
static bool has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

const char *ninja_arg_refusal(const char *s, enum arg_route route)
{
	if (strpbrk(s, "\n\r"))
		return "a line break";
	if (has_control(s))
		return "a control character";
	/* nvcc runs the host compiler and its own tools through /bin/sh, pasting values into
	 * double quotes without escaping '$', '`' or '\\' (and a -D or -I value is a
	 * comma-separated list to nvcc): those cannot reach the compiler verbatim. A -I value
	 * with a single quote reaches it as \' (nvcc 13.0 writes -I"a\'b" for -Ia'b: measured
	 * for every printable character with nvcc --dryrun); a -D value keeps it. */
	const char *bad = NULL;
	switch (route) {
	case ARG_CC:
		return NULL;
	case ARG_PATH:
		return strchr(s, '|') ? "'|' (build.ninja cannot name such a path)" : NULL;
	case ARG_NVCC_DEFINE: {
		/* nvcc trims its option values: "-DPK=ZX " reaches the host compiler as -DPK=ZX
		 * (found by test_graph_property, seed 739257575). */
		size_t len = strlen(s);
		if (len && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t'))
			return "leading or trailing whitespace (nvcc strips it from its options)";
		bad = "$`\\\",";
		break;
	}
	case ARG_NVCC_INCLUDE:
		bad = "$`\\\",'";
		break;
	case ARG_NVCC_HOST:
		bad = "$`\\\"'";
		break;
	case ARG_NVCC_FLAG:
		for (const char *p = s; *p; p++)
			if (!strchr(SHELL_PLAIN, *p))
				return *p == ' '
				           ? "a space (nvcc may paste an nvcc flag into a shell "
				             "command unquoted)"
				           : "a character nvcc may paste into a shell command "
				             "unquoted (nvcc-flags take [A-Za-z0-9-_./=:,+@%^])";
		return NULL;
	}
	const char *p = strpbrk(s, bad);
	if (!p)
		return NULL;
	switch (*p) {
	case ',':
		return "',' (nvcc splits a -D or -I value at commas)";
	case '$':
		return "'$' (nvcc hands it to a shell, which would expand it)";
	case '`':
		return "'`' (nvcc hands it to a shell, which would run it)";
	case '\\':
		return "'\\' (nvcc reads it as an escape)";
	case '"':
		return "'\"' (nvcc reads it as a quote)";
	default:
		return route == ARG_NVCC_INCLUDE ? "''' (nvcc hands it to the compiler as \\')"
		                                 : "''' (nvcc passes it to a shell unquoted)";
	}
}

bool ninja_source_needs_stub(const char *path, bool nvcc)
{
	if (!nvcc)
		return strchr(path, '|') != NULL;
	for (const char *p = path; *p; p++)
		if (*p == ',' || !strchr(SHELL_PLAIN, *p))
			return true;
	return false;
}

char *ninja_stub_name(struct arena *a, const char *path)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "src/");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || *p == '.' || *p == '/' || *p == '-')
			sb_putc(&sb, (char)*p);
		else
			sb_printf(&sb, "_%02x", *p);
	}
	return sb_to_arena(&sb, a);
}

void ninja_depfile_path(struct strbuf *sb, const char *path)
{
	for (const char *p = path; *p; p++) {
		if (*p == ' ' || *p == '#' || *p == '\\')
			sb_putc(sb, '\\');
		else if (*p == '$')
			sb_putc(sb, '$');
		sb_putc(sb, *p);
	}
}

void ninja_depfile_prereqs(struct arena *a, const char *text, size_t len, struct strv *deps)
{
	struct strbuf w = {0};
	bool targets = true;
	for (size_t i = 0; i <= len;) {
		char ch = i < len ? text[i] : '\n';
		if (ch == '\\' && i + 1 < len && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
			i += 2 + (text[i + 1] == '\r' && i + 2 < len && text[i + 2] == '\n');
			ch = ' ';
		} else if (ch == '\\' && i + 1 < len && strchr(" #\\", text[i + 1])) {
			sb_putc(&w, text[i + 1]);
			i += 2;
			continue;
		} else if (ch == '$' && i + 1 < len && text[i + 1] == '$') {
			sb_putc(&w, '$');
			i += 2;
			continue;
		} else {
			i++;
		}
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
			sb_putc(&w, ch);
			continue;
		}
		/* A word ends; "target:" (or a lone ':') ends the targets, a newline starts them.
		 */
		if (w.len && targets && w.buf[w.len - 1] == ':') {
			targets = false;
		} else if (w.len == 0 || targets) {
			;
		} else {
			const char *dep = arena_strndup(a, w.buf, w.len);
			if (!strv_contains(deps, dep))
				strv_push(a, deps, dep);
		}
		sb_reset(&w);
		if (ch == '\n')
			targets = true;
	}
	sb_release(&w);
}
