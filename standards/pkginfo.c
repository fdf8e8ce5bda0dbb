/* pkginfo.c: reads an sdist's PKG-INFO as verbatim headers and writes the wheel's METADATA from
 * it, so that core metadata fields are kept exactly as the project's own backend wrote them. */
#include "standards/pkginfo.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/strbuf.h"

bool pkginfo_parse(struct arena *a, struct diag *d, const struct source *src, struct pkginfo *out)
{
	memset(out, 0, sizeof(*out));
	if (memchr(src->text, '\0', src->len)) {
		size_t off = (size_t)((const char *)memchr(src->text, '\0', src->len) - src->text);
		int line = 1;
		for (size_t i = 0; i < off; i++)
			line += src->text[i] == '\n';
		diag_at(d, DIAG_ERROR, src, line, 1, "PKG-INFO holds a NUL byte");
		return false;
	}
	size_t cap = 0;
	const char *p = src->text, *end = src->text + src->len;
	int line = 1;
	struct pkginfo_header *cur = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *next = nl ? nl + 1 : end;
		size_t len = (size_t)(le - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len == 0) { /* the blank line: the body follows */
			if (next < end) {
				out->body = next;
				out->body_len = (size_t)(end - next);
			}
			break;
		}
		if (p[0] == ' ' || p[0] == '\t') {
			if (!cur) {
				diag_at(d, DIAG_ERROR, src, line, 1,
				        "a continuation line before any header");
				return false;
			}
			cur->value = arena_printf(a, "%s\n%.*s", cur->value, (int)len, p);
			cur->raw_len = (size_t)(next - cur->raw);
		} else {
			const char *colon = memchr(p, ':', len);
			size_t k = 0;
			while (k < len && (isalnum((unsigned char)p[k]) || p[k] == '-'))
				k++;
			if (!colon || (size_t)(colon - p) != k || k == 0) {
				diag_at(d, DIAG_ERROR, src, line, (int)k + 1,
				        "not a 'Name: value' header line");
				diag_msg(d, DIAG_HINT,
				         "core metadata headers end at the first blank "
				         "line; the long description follows it");
				return false;
			}
			if (out->n == cap) {
				size_t nc = cap ? cap * 2 : 32;
				out->v = arena_realloc(a, out->v, cap, nc, sizeof(*out->v));
				cap = nc;
			}
			cur = &out->v[out->n++];
			cur->name = arena_strndup(a, p, k);
			const char *v = colon + 1;
			while (v < p + len && (*v == ' ' || *v == '\t'))
				v++;
			cur->value = arena_strndup(a, v, (size_t)(p + len - v));
			cur->raw = p;
			cur->raw_len = (size_t)(next - p);
			cur->line = line;
		}
		line++;
		p = next;
	}
	static const char *const required[] = {"Metadata-Version", "Name", "Version"};
	for (size_t i = 0; i < 3; i++) {
		if (!pkginfo_get(out, required[i])) {
			diag_at(d, DIAG_ERROR, src, 1, 1, "PKG-INFO has no %s header", required[i]);
			return false;
		}
	}
	return true;
}

const struct pkginfo_header *pkginfo_get(const struct pkginfo *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcasecmp(p->v[i].name, name))
			return &p->v[i];
	return NULL;
}

/* True when the space-separated list holds name (case-insensitive). */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; *s;) {
		size_t k = strcspn(s, " ");
		if (k == n && !strncasecmp(s, name, n))
			return true;
		s += k;
		while (*s == ' ')
			s++;
	}
	return false;
}

unsigned pkginfo_group_of(const char *header)
{
#define X(e, key, headers)                                                                         \
	if (in_list(headers, header))                                                              \
		return e;
	PKGINFO_GROUPS(X)
#undef X
	return 0;
}

char *pkginfo_render(struct arena *a, struct diag *d, const char *where,
                     const struct project_meta *m, const char *version, const char *rendered,
                     size_t rendered_len, size_t *len)
{
	struct source ps = {.path = "PKG-INFO", .text = m->pkginfo, .len = m->pkginfo_len};
	struct pkginfo pk;
	if (!pkginfo_parse(a, d, &ps, &pk))
		return NULL;
	struct source rs = {.path = where, .text = rendered, .len = rendered_len};
	struct pkginfo rk;
	if (!pkginfo_parse(a, d, &rs, &rk))
		return NULL;
	unsigned repl = m->pkginfo_replaced;
	struct strbuf sb = {0};
	bool version_done = false;
	for (size_t i = 0; i < pk.n; i++) {
		const struct pkginfo_header *h = &pk.v[i];
		if (!strcasecmp(h->name, "Version")) {
			if (!version_done)
				sb_printf(&sb, "%s: %s\n", h->name, version);
			version_done = true;
			continue;
		}
		if (pkginfo_group_of(h->name) & repl)
			continue;
		sb_printf(&sb, "%.*s", (int)h->raw_len, h->raw);
		if (h->raw_len && h->raw[h->raw_len - 1] != '\n')
			sb_putc(&sb, '\n');
	}
	/* Replaced groups, as the project model renders them; Requires-Dist lines the model
	 * gained (the torch a cell was built against) when the group itself is kept. */
	for (size_t i = 0; i < rk.n; i++) {
		const struct pkginfo_header *h = &rk.v[i];
		unsigned g = pkginfo_group_of(h->name);
		if ((g & repl) && g != PKGINFO_README)
			sb_printf(&sb, "%.*s", (int)h->raw_len, h->raw);
		else if (g == PKGINFO_DEPS && !(repl & PKGINFO_DEPS) &&
		         !strcasecmp(h->name, "Requires-Dist") && !strstr(h->value, "extra =="))
			sb_printf(&sb, "%.*s", (int)h->raw_len, h->raw);
	}
	const struct pkginfo *bodyfrom = (repl & PKGINFO_README) ? &rk : &pk;
	if (repl & PKGINFO_README) {
		const struct pkginfo_header *ct = pkginfo_get(&rk, "Description-Content-Type");
		if (ct)
			sb_printf(&sb, "%.*s", (int)ct->raw_len, ct->raw);
	}
	if (bodyfrom->body) {
		sb_putc(&sb, '\n');
		sb_printf(&sb, "%.*s", (int)bodyfrom->body_len, bodyfrom->body);
	}
	*len = sb.len;
	return sb_to_arena(&sb, a);
}
