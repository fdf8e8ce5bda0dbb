/* ninja.c: escaping for build.ninja. */
#include "matrix/ninja.h"

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

static bool shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "-_./=:,+@%^",
			    *p))
			return false;
	return true;
}

void ninja_arg(struct strbuf *sb, const char *arg)
{
	if (shell_plain(arg)) {
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

void ninja_args(struct strbuf *sb, const char *const *argv)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		sb_putc(sb, ' ');
		ninja_arg(sb, argv[i]);
	}
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
