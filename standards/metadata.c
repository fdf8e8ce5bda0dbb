/* metadata.c: renders METADATA 2.4, WHEEL and entry_points.txt from the project model. */
#include "standards/metadata.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/strbuf.h"
#include "standards/pkginfo.h"

struct md_ctx {
	struct diag *d;
	const char *where;
	struct strbuf sb;
	bool ok;
};

/* Writes "Key: value\n", refusing values that would break the header block. */
static void md_field(struct md_ctx *c, const char *key, const char *value)
{
	if (!value)
		return;
	if (strpbrk(value, "\r\n")) {
		diag_path(c->d, DIAG_ERROR, c->where,
		          "%s cannot hold a line break in METADATA: '%s'", key, value);
		c->ok = false;
		return;
	}
	sb_printf(&c->sb, "%s: %s\n", key, value);
}

/* True when a display name must be quoted in an address (RFC 5322 specials). */
static bool md_name_needs_quotes(const char *s)
{
	return strpbrk(s, "()<>[]:;@\\,.\"") != NULL;
}

static void md_put_address(struct strbuf *sb, const struct person *p)
{
	if (p->name && p->name[0]) {
		if (md_name_needs_quotes(p->name)) {
			sb_putc(sb, '"');
			for (const char *s = p->name; *s; s++) {
				if (*s == '"' || *s == '\\')
					sb_putc(sb, '\\');
				sb_putc(sb, *s);
			}
			sb_putc(sb, '"');
		} else {
			sb_puts(sb, p->name);
		}
		sb_printf(sb, " <%s>", p->email);
	} else {
		sb_puts(sb, p->email);
	}
}

/* PEP 621: name only -> Author; email (with or without name) -> Author-email, comma-joined. */
static void md_people(struct md_ctx *c, struct arena *a, const char *key, const char *key_email,
                      const struct person *v, size_t n)
{
	struct strbuf names = {0}, emails = {0};
	for (size_t i = 0; i < n; i++) {
		if (v[i].email && v[i].email[0]) {
			if (emails.len)
				sb_puts(&emails, ", ");
			md_put_address(&emails, &v[i]);
		} else if (v[i].name && v[i].name[0]) {
			if (names.len)
				sb_puts(&names, ", ");
			sb_puts(&names, v[i].name);
		}
	}
	if (names.len)
		md_field(c, key, sb_to_arena(&names, a));
	if (emails.len)
		md_field(c, key_email, sb_to_arena(&emails, a));
	sb_release(&names);
	sb_release(&emails);
}

/* Splits a PEP 508 requirement into the requirement and its marker (NULL when none). In URL
 * form ("name @ url ; marker") the separator is whitespace then ';', as PEP 508 requires. */
static void md_split_marker(struct arena *a, const char *req, char **base, char **marker)
{
	const char *semi = NULL;
	if (strchr(req, '@')) {
		for (const char *s = req; *s; s++)
			if (*s == ';' && s > req && isspace((unsigned char)s[-1])) {
				semi = s;
				break;
			}
	} else {
		semi = strchr(req, ';');
	}
	if (!semi) {
		*base = arena_strdup(a, req);
		*marker = NULL;
		return;
	}
	const char *e = semi;
	while (e > req && isspace((unsigned char)e[-1]))
		e--;
	*base = arena_strndup(a, req, (size_t)(e - req));
	const char *m = semi + 1;
	while (isspace((unsigned char)*m))
		m++;
	size_t ml = strlen(m);
	while (ml && isspace((unsigned char)m[ml - 1]))
		ml--;
	*marker = ml ? arena_strndup(a, m, ml) : NULL;
}

char *metadata_render(struct arena *a, struct diag *d, const char *where,
                      const struct project_meta *m, const char *version, size_t *len)
{
	struct md_ctx c = {d, where, {0}, true};
	if (m->license_expression && m->license_text) {
		diag_path(d, DIAG_ERROR, where,
		          "License-Expression and License are exclusive: set project.license to an "
		          "SPDX expression or to a table, not both");
		return NULL;
	}
	if (!m->name || !version) {
		diag_path(d, DIAG_ERROR, where, "METADATA needs the project's name and version");
		return NULL;
	}
	md_field(&c, "Metadata-Version", "2.4");
	md_field(&c, "Name", m->name);
	md_field(&c, "Version", version);
	md_field(&c, "Summary", m->description);
	if (m->keywords.n) {
		struct strbuf k = {0};
		for (size_t i = 0; i < m->keywords.n; i++) {
			if (i)
				sb_putc(&k, ',');
			sb_puts(&k, m->keywords.v[i]);
		}
		md_field(&c, "Keywords", sb_to_arena(&k, a));
	}
	md_people(&c, a, "Author", "Author-email", m->authors, m->n_authors);
	md_people(&c, a, "Maintainer", "Maintainer-email", m->maintainers, m->n_maintainers);
	md_field(&c, "License-Expression", m->license_expression);
	if (m->license_text) {
		/* Multi-line license text: continuation lines are indented (RFC 822 folding). */
		sb_puts(&c.sb, "License: ");
		for (const char *s = m->license_text; *s; s++) {
			if (*s == '\r')
				continue;
			sb_putc(&c.sb, *s);
			if (*s == '\n' && s[1])
				sb_puts(&c.sb, "       ");
		}
		if (c.sb.buf[c.sb.len - 1] != '\n')
			sb_putc(&c.sb, '\n');
	}
	for (size_t i = 0; i < m->license_files.n; i++)
		md_field(&c, "License-File", m->license_files.v[i]);
	for (size_t i = 0; i < m->classifiers.n; i++)
		md_field(&c, "Classifier", m->classifiers.v[i]);
	for (size_t i = 0; i < m->urls.n; i++)
		md_field(&c, "Project-URL",
		         arena_printf(a, "%s, %s", m->urls.v[i].key, m->urls.v[i].value));
	md_field(&c, "Requires-Python", m->requires_python);
	for (size_t i = 0; i < m->dependencies.n; i++)
		md_field(&c, "Requires-Dist", m->dependencies.v[i]);
	for (size_t i = 0; i < m->n_extras; i++) {
		const struct extra *x = &m->extras[i];
		md_field(&c, "Provides-Extra", x->name);
		for (size_t j = 0; j < x->deps.n; j++) {
			char *base, *marker;
			md_split_marker(a, x->deps.v[j], &base, &marker);
			const char *sep = strchr(base, '@') ? " " : "";
			char *v =
			    marker ? arena_printf(a, "%s%s; (%s) and extra == \"%s\"", base, sep,
			                          marker, x->name)
			           : arena_printf(a, "%s%s; extra == \"%s\"", base, sep, x->name);
			md_field(&c, "Requires-Dist", v);
		}
	}
	if (m->readme_text) {
		md_field(&c, "Description-Content-Type",
		         m->readme_type ? m->readme_type : "text/plain");
		sb_putc(&c.sb, '\n');
		sb_puts(&c.sb, m->readme_text);
		if (c.sb.buf[c.sb.len - 1] != '\n')
			sb_putc(&c.sb, '\n');
	}
	if (!c.ok) {
		sb_release(&c.sb);
		return NULL;
	}
	*len = c.sb.len;
	char *text = sb_to_arena(&c.sb, a);
	/* From an sdist's PKG-INFO: its headers kept as written, the model for what overrides. */
	if (m->pkginfo)
		return pkginfo_render(a, d, where, m, version, text, *len, len);
	return text;
}

char *metadata_wheel_render(struct arena *a, const char *generator, bool purelib, const char *build,
                            const struct wheel_tag *tags, size_t n_tags)
{
	struct strbuf sb = {0};
	sb_printf(&sb, "Wheel-Version: 1.0\nGenerator: %s\nRoot-Is-Purelib: %s\n", generator,
	          purelib ? "true" : "false");
	for (size_t i = 0; i < n_tags; i++)
		sb_printf(&sb, "Tag: %s-%s-%s\n", tags[i].python, tags[i].abi, tags[i].platform);
	if (build)
		sb_printf(&sb, "Build: %s\n", build);
	return sb_to_arena(&sb, a);
}

/* Returns the length of the header name at line start s (up to ':'), or 0. */
static size_t md_key_len(const char *s, const char *end)
{
	const char *p = s;
	while (p < end && *p != ':' && *p != '\n')
		p++;
	return p < end && *p == ':' ? (size_t)(p - s) : 0;
}

char *metadata_wheel_retag(struct arena *a, struct diag *d, const char *where, const char *wheel,
                           size_t len, const char *build, const struct wheel_tag *tags,
                           size_t n_tags, size_t *out_len)
{
	const char *p = wheel, *end = wheel + len;
	struct strbuf sb = {0};
	bool saw_version = false, tags_done = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl + 1 : end;
		size_t k = md_key_len(p, le);
		bool is_tag = k == 3 && strncasecmp(p, "Tag", 3) == 0;
		bool is_build = k == 5 && strncasecmp(p, "Build", 5) == 0;
		if (k == 13 && strncasecmp(p, "Wheel-Version", 13) == 0)
			saw_version = true;
		if (is_tag && !tags_done) {
			for (size_t i = 0; i < n_tags; i++)
				sb_printf(&sb, "Tag: %s-%s-%s\n", tags[i].python, tags[i].abi,
				          tags[i].platform);
			tags_done = true;
		}
		if (!is_tag && !is_build && le > p) {
			sb_add(&sb, p, (size_t)(le - p));
			if (!nl)
				sb_putc(&sb, '\n');
		}
		p = le;
	}
	if (!saw_version) {
		sb_release(&sb);
		diag_path(d, DIAG_ERROR, where, "not a WHEEL file: no Wheel-Version header");
		return NULL;
	}
	if (!tags_done)
		for (size_t i = 0; i < n_tags; i++)
			sb_printf(&sb, "Tag: %s-%s-%s\n", tags[i].python, tags[i].abi,
			          tags[i].platform);
	if (build && build[0])
		sb_printf(&sb, "Build: %s\n", build);
	*out_len = sb.len;
	return sb_to_arena(&sb, a);
}

static void ep_group(struct strbuf *sb, const char *group, const struct str_pairs *p)
{
	if (!p->n)
		return;
	if (sb->len)
		sb_putc(sb, '\n');
	sb_printf(sb, "[%s]\n", group);
	for (size_t i = 0; i < p->n; i++)
		sb_printf(sb, "%s = %s\n", p->v[i].key, p->v[i].value);
}

char *metadata_entry_points_render(struct arena *a, const struct project_meta *m)
{
	struct strbuf sb = {0};
	ep_group(&sb, "console_scripts", &m->scripts);
	ep_group(&sb, "gui_scripts", &m->gui_scripts);
	for (size_t i = 0; i < m->n_entry_points; i++)
		ep_group(&sb, m->entry_points[i].group, &m->entry_points[i].entries);
	if (!sb.len)
		return NULL;
	return sb_to_arena(&sb, a);
}

char *metadata_set_version(struct arena *a, struct diag *d, const char *where, const char *text,
                           size_t len, const char *version, size_t *out_len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl + 1 : end;
		if (le - p <= 1 || (le - p == 2 && *p == '\r'))
			break; /* end of the headers */
		if (md_key_len(p, le) == 7 && strncasecmp(p, "Version", 7) == 0) {
			struct strbuf sb = {0};
			sb_add(&sb, text, (size_t)(p - text));
			sb_printf(&sb, "Version: %s\n", version);
			sb_add(&sb, le, (size_t)(end - le));
			*out_len = sb.len;
			return sb_to_arena(&sb, a);
		}
		p = le;
	}
	diag_path(d, DIAG_ERROR, where, "no Version header in METADATA");
	return NULL;
}

char *metadata_set_requirement(struct arena *a, struct diag *d, const char *where, const char *text,
                               size_t len, const char *name, const char *requirement,
                               size_t *out_len)
{
	const char *p = text, *end = text + len;
	size_t nn = strlen(name);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl + 1 : end;
		if (le - p <= 1 || (le - p == 2 && *p == '\r'))
			break; /* end of the headers */
		if (md_key_len(p, le) == 13 && strncasecmp(p, "Requires-Dist", 13) == 0) {
			const char *v = p + 14;
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			/* The distribution's name ends at the first character a name cannot hold.
			 */
			if ((size_t)(le - v) > nn && strncasecmp(v, name, nn) == 0 &&
			    !strchr(
			        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.",
			        v[nn])) {
				struct strbuf sb = {0};
				sb_add(&sb, text, (size_t)(p - text));
				sb_printf(&sb, "Requires-Dist: %s\n", requirement);
				sb_add(&sb, le, (size_t)(end - le));
				*out_len = sb.len;
				return sb_to_arena(&sb, a);
			}
		}
		p = le;
	}
	diag_path(d, DIAG_ERROR, where, "no Requires-Dist: %s in METADATA", name);
	return NULL;
}

char *metadata_header(struct arena *a, const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len;
	size_t nl_ = strlen(name);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl + 1 : end;
		if (le - p <= 1 || (le - p == 2 && *p == '\r'))
			break;
		if (md_key_len(p, le) == nl_ && strncasecmp(p, name, nl_) == 0) {
			const char *v = p + nl_ + 1;
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			const char *ve = le;
			while (ve > v && (ve[-1] == '\n' || ve[-1] == '\r' || ve[-1] == ' '))
				ve--;
			return arena_strndup(a, v, (size_t)(ve - v));
		}
		p = le;
	}
	return NULL;
}
