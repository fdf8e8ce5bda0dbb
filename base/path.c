/* path.c: '/'-separated path arithmetic on strings, without asking the file system. */
#include "base/path.h"

#include <string.h>

#include "base/strbuf.h"

char *path_relative(struct arena *a, const char *from, const char *to)
{
	/* Common prefix by whole components. */
	size_t i = 0, last = 0;
	while (from[i] && to[i] && from[i] == to[i]) {
		if (from[i] == '/')
			last = i;
		i++;
	}
	if (!from[i] && (to[i] == '/' || !to[i]))
		last = i;
	else if (!to[i] && from[i] == '/')
		last = i;
	struct strbuf sb = {0};
	for (const char *p = from + last; *p; p++)
		if (*p == '/' && p[1])
			sb_puts(&sb, "../");
	const char *rest = to + last;
	if (*rest == '/')
		rest++;
	sb_puts(&sb, rest);
	if (sb.len == 0)
		sb_putc(&sb, '.');
	else if (sb.buf[sb.len - 1] == '/')
		sb.buf[--sb.len] = '\0';
	return sb_to_arena(&sb, a);
}

const char *path_next(const char **p, size_t *len)
{
	const char *s = *p;
	if (!*s)
		return NULL;
	const char *e = s;
	while (*e && *e != '/')
		e++;
	*len = (size_t)(e - s);
	*p = *e ? e + 1 : e;
	return s;
}

const char *path_under(struct arena *a, const char *dir, const char *rel)
{
	if (rel[0] == '/' || !strcmp(dir, "."))
		return rel;
	size_t n = strlen(dir);
	return arena_printf(a, n && dir[n - 1] == '/' ? "%s%s" : "%s/%s", dir, rel);
}
