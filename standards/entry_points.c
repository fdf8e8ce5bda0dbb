/* entry_points.c: entry-point names, groups and object references checked against the PyPA
 * entry-points specification, and entry_points.txt files read by the same rules. A wheel that
 * breaks them installs broken: pip writes a script named by a line break, or reads a smuggled
 * "[console_scripts]" section. */
#include "standards/entry_points.h"

#include <ctype.h>
#include <string.h>

static bool has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

const char *entry_point_name_problem(const char *name, bool script)
{
	size_t n = strlen(name);
	if (!n)
		return "an empty name";
	if (has_control(name, n))
		return strpbrk(name, "\n\r") ? "a line break in the name"
		                             : "a control character in the name";
	if (strchr(name, '='))
		return "'=' in the name";
	if (isspace((unsigned char)name[0]) || isspace((unsigned char)name[n - 1]))
		return "white space at the start or end of the name";
	if (name[0] == '[')
		return "a name starting with '['";
	if (script && (strchr(name, '/') || strchr(name, '\\')))
		return "a '/' or '\\' in a script name (pip writes the script under that name)";
	if (script && (!strcmp(name, ".") || !strcmp(name, "..")))
		return "a script named '.' or '..'";
	return NULL;
}

const char *entry_point_group_problem(const char *group)
{
	if (!*group)
		return "an empty group name";
	for (const char *p = group; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return "a group name outside [A-Za-z0-9_.-]";
	return NULL;
}

/* Reads identifier(.identifier)* at *p; false when none is there. Bytes >= 0x80 count as
 * identifier characters (Python identifiers may be non-ASCII). */
static bool dotted(const char **p)
{
	const char *s = *p;
	for (;;) {
		unsigned char c = (unsigned char)*s;
		if (!(isalpha(c) || c == '_' || c >= 0x80))
			return false;
		while (isalnum((unsigned char)*s) || *s == '_' || (unsigned char)*s >= 0x80)
			s++;
		if (*s != '.')
			break;
		s++;
	}
	*p = s;
	return true;
}

const char *entry_point_ref_problem(const char *ref, bool need_attr)
{
	if (has_control(ref, strlen(ref)))
		return strpbrk(ref, "\n\r") ? "a line break in the object reference"
		                            : "a control character in the object reference";
	const char *p = ref;
	if (!dotted(&p))
		return "an object reference that does not start with a module name";
	bool attr = false;
	while (*p == ' ')
		p++;
	if (*p == ':') {
		p++;
		while (*p == ' ')
			p++;
		if (!dotted(&p))
			return "nothing that names an attribute after ':'";
		attr = true;
	}
	while (*p == ' ')
		p++;
	if (*p == '[') {
		/* Extras: deprecated, still read by installers. */
		p++;
		for (;;) {
			while (*p == ' ')
				p++;
			if (!isalnum((unsigned char)*p))
				return "a malformed [extras] list";
			while (isalnum((unsigned char)*p) || (*p && strchr("_.-", *p)))
				p++;
			while (*p == ' ')
				p++;
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p != ']')
				return "a malformed [extras] list";
			p++;
			break;
		}
		while (*p == ' ')
			p++;
	}
	if (*p)
		return "an object reference that is not module.name[:attribute.name]";
	if (need_attr && !attr)
		return "a script's object reference without ':function'";
	return NULL;
}

/* The line [s, e) with surrounding blanks stripped. */
static void strip(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

const char *entry_points_txt_problem(struct arena *a, const char *text, size_t len)
{
	if (memchr(text, '\0', len))
		return "a NUL byte";
	const char *group = NULL;
	struct strv groups = {0}, names = {0};
	int line = 0;
	for (const char *s = text; s < text + len;) {
		const char *nl = memchr(s, '\n', (size_t)(text + len - s));
		const char *e = nl ? nl : text + len;
		const char *next = nl ? nl + 1 : text + len;
		line++;
		strip(&s, &e);
		if (s == e || *s == '#' || *s == ';') {
			s = next;
			continue;
		}
		if (*s == '[') {
			if (e[-1] != ']' || e - s < 3)
				return arena_printf(a, "line %d: a malformed [group] header", line);
			group = arena_strndup(a, s + 1, (size_t)(e - s - 2));
			const char *why = entry_point_group_problem(group);
			if (why)
				return arena_printf(a, "line %d: %s", line, why);
			if (strv_contains(&groups, group))
				return arena_printf(a, "line %d: group [%s] appears twice", line,
				                    group);
			strv_push(a, &groups, group);
			names.n = 0;
			s = next;
			continue;
		}
		const char *eq = memchr(s, '=', (size_t)(e - s));
		if (!eq)
			return arena_printf(a, "line %d: an entry without '='", line);
		if (!group)
			return arena_printf(a, "line %d: an entry before any [group]", line);
		const char *ns = s, *ne = eq, *vs = eq + 1, *ve = e;
		strip(&ns, &ne);
		strip(&vs, &ve);
		char *name = arena_strndup(a, ns, (size_t)(ne - ns));
		char *ref = arena_strndup(a, vs, (size_t)(ve - vs));
		bool script = !strcmp(group, "console_scripts") || !strcmp(group, "gui_scripts");
		const char *why = entry_point_name_problem(name, script);
		if (!why)
			why = entry_point_ref_problem(ref, script);
		if (why)
			return arena_printf(a, "line %d: %s", line, why);
		if (strv_contains(&names, name))
			return arena_printf(a, "line %d: '%s' appears twice in [%s]", line, name,
			                    group);
		strv_push(a, &names, name);
		s = next;
	}
	return NULL;
}
