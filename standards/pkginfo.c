/* pkginfo.c: reads an sdist's PKG-INFO as verbatim headers and writes the wheel's METADATA from
 * it, so that core metadata fields are kept exactly as the project's own backend wrote them. */
#include "standards/pkginfo.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/escape.h"
#include "base/strbuf.h"
#include "standards/spdx.h"
#include "standards/version.h"

/* The line of text offset off falls on (1-based). */
static int line_of(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* Length of a byte sequence Python's email parser (str.splitlines) would break a line at, at
 * p (0 when none): CR, LF, VT, FF, FS, GS, RS, NEL (U+0085), LS and PS (U+2028, U+2029). */
static size_t line_break_at(const unsigned char *p, const unsigned char *end)
{
	if (*p == '\r' || *p == '\n' || *p == '\v' || *p == '\f' || (*p >= 0x1c && *p <= 0x1e))
		return 1;
	if (*p == 0xc2 && p + 1 < end && p[1] == 0x85)
		return 2;
	if (*p == 0xe2 && p + 2 < end && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

/* The value of h, unfolded: its first line after "Name:" and blanks, then each continuation
 * line joined with '\n' (one pass over the header's own bytes: linear in its size). */
static const char *unfold(struct arena *a, const struct pkginfo_header *h, size_t name_len)
{
	const char *p = h->raw + name_len + 1, *end = h->raw + h->raw_len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	char *out = arena_alloc(a, (size_t)(end - p) + 1), *o = out;
	bool first = true;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (!first)
			*o++ = '\n';
		memcpy(o, p, len);
		o += len;
		first = false;
		p = nl ? nl + 1 : end;
	}
	*o = '\0';
	return out;
}

bool pkginfo_parse(struct arena *a, struct diag *d, const struct source *src, struct pkginfo *out)
{
	memset(out, 0, sizeof(*out));
	if (memchr(src->text, '\0', src->len)) {
		size_t off = (size_t)((const char *)memchr(src->text, '\0', src->len) - src->text);
		diag_at(d, DIAG_ERROR, src, line_of(src->text, off), 1,
		        "PKG-INFO holds a NUL byte");
		return false;
	}
	size_t cap = 0;
	const char *p = src->text, *end = src->text + src->len;
	int line = 1;
	struct pkginfo_header *cur = NULL;
	size_t *name_len = NULL;
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
		/* A header line holds no other line break: CR alone, VT, FF and the Unicode line
		 * separators all start a new header for Python's email parser (a hidden
		 * Requires-Dist in "Author: a\rRequires-Dist: evil"). */
		for (const unsigned char *q = (const unsigned char *)p;
		     q < (const unsigned char *)p + len; q++) {
			if (line_break_at(q, (const unsigned char *)p + len)) {
				diag_at(
				    d, DIAG_ERROR, src, line,
				    (int)(q - (const unsigned char *)p) + 1,
				    "a line break (\\x%02x%s) inside a header value: email parsers "
				    "would start a new header there",
				    *q, *q >= 0x80 ? ", a Unicode line separator" : "");
				return false;
			}
		}
		if (p[0] == ' ' || p[0] == '\t') {
			if (!cur) {
				diag_at(d, DIAG_ERROR, src, line, 1,
				        "a continuation line before any header");
				return false;
			}
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
				name_len = arena_realloc(a, name_len, cap, nc, sizeof(*name_len));
				cap = nc;
			}
			name_len[out->n] = k;
			cur = &out->v[out->n++];
			cur->name = arena_strndup(a, p, k);
			cur->raw = p;
			cur->raw_len = (size_t)(next - p);
			cur->line = line;
		}
		line++;
		p = next;
	}
	for (size_t i = 0; i < out->n; i++)
		out->v[i].value = unfold(a, &out->v[i], name_len[i]);
	static const char *const required[] = {"Metadata-Version", "Name", "Version"};
	for (size_t i = 0; i < 3; i++) {
		if (!pkginfo_get(out, required[i])) {
			diag_at(d, DIAG_ERROR, src, 1, 1, "PKG-INFO has no %s header", required[i]);
			return false;
		}
	}
	return true;
}

/* The core metadata fields (2.4): where each was introduced, whether it may appear more than
 * once, and whether its value may span several lines. */
#define PKGINFO_FIELDS(X)                                                                          \
	X("Metadata-Version", 10, false, false)                                                    \
	X("Name", 10, false, false)                                                                \
	X("Version", 10, false, false)                                                             \
	X("Dynamic", 22, true, false)                                                              \
	X("Platform", 10, true, false)                                                             \
	X("Supported-Platform", 11, true, false)                                                   \
	X("Summary", 10, false, false)                                                             \
	X("Description", 10, false, true)                                                          \
	X("Description-Content-Type", 21, false, false)                                            \
	X("Keywords", 10, false, false)                                                            \
	X("Home-page", 10, false, false)                                                           \
	X("Download-URL", 11, false, false)                                                        \
	X("Author", 10, false, true)                                                               \
	X("Author-email", 10, false, true)                                                         \
	X("Maintainer", 12, false, true)                                                           \
	X("Maintainer-email", 12, false, true)                                                     \
	X("License", 10, false, true)                                                              \
	X("License-Expression", 24, false, false)                                                  \
	X("License-File", 24, true, false)                                                         \
	X("Classifier", 11, true, false)                                                           \
	X("Requires-Dist", 12, true, false)                                                        \
	X("Requires-Python", 12, false, false)                                                     \
	X("Requires-External", 12, true, false)                                                    \
	X("Project-URL", 12, true, false)                                                          \
	X("Provides-Extra", 21, true, false)                                                       \
	X("Provides-Dist", 12, true, false)                                                        \
	X("Obsoletes-Dist", 12, true, false)                                                       \
	X("Requires", 11, true, false)                                                             \
	X("Provides", 11, true, false)                                                             \
	X("Obsoletes", 11, true, false)                                                            \
	X("Import-Name", 25, true, false)                                                          \
	X("Import-Namespace", 25, true, false)

static const struct field {
	const char *name;
	int since; /* Metadata-Version * 10 */
	bool multiple;
	bool multiline;
} fields[] = {
#define X(n, v, m, l) {n, v, m, l},
    PKGINFO_FIELDS(X)
#undef X
};
enum { N_FIELDS = sizeof(fields) / sizeof(*fields) };

static int field_index(const char *name)
{
	for (int i = 0; i < N_FIELDS; i++)
		if (!strcasecmp(fields[i].name, name))
			return i;
	return -1;
}

/* A distribution or extra name (PEP 508): letters and digits, '.', '_' and '-' inside. */
static bool name_valid(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* Offset of the first byte that is not UTF-8 (overlong forms, surrogates and code points
 * above U+10FFFF included), or n when all is. */
static size_t utf8_bad(const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		size_t k = c < 0x80             ? 0
		           : (c & 0xe0) == 0xc0 ? 1
		           : (c & 0xf0) == 0xe0 ? 2
		           : (c & 0xf8) == 0xf0 ? 3
		                                : 9;
		if (k == 9 || (k == 1 && c < 0xc2) || i + k >= n + (k ? 0 : 1))
			return i;
		unsigned long cp = k == 0 ? c : c & (0x3f >> k);
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (p[i + j] & 0x3f);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return i;
		i += k + 1;
	}
	return n;
}

/* The column (1-based) where h's value starts. */
static int value_col(const struct pkginfo_header *h)
{
	size_t k = strlen(h->name) + 1;
	while (k < h->raw_len && (h->raw[k] == ' ' || h->raw[k] == '\t'))
		k++;
	return (int)k + 1;
}

static bool content_type_valid(const char *v)
{
	static const char *const types[] = {"text/plain", "text/x-rst", "text/markdown"};
	size_t n = strcspn(v, ";");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < 3; i++)
		if (strlen(types[i]) == n && !strncasecmp(v, types[i], n))
			return true;
	return false;
}

/* Why the value of a field cuwheel reads is wrong, or NULL. */
static const char *value_problem(struct arena *a, int f, const char *v, int mv)
{
	const char *name = fields[f].name, *err = NULL;
	if (!strcmp(name, "Metadata-Version")) {
		static const char *const ok[] = {"1.0", "1.1", "1.2", "2.0", "2.1",
		                                 "2.2", "2.3", "2.4", "2.5"};
		for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
			if (!strcmp(v, ok[i]))
				return NULL;
		return "is not a core metadata version (1.0 to 1.2, 2.0 to 2.5)";
	}
	if (!strcmp(name, "Name") || !strcmp(name, "Provides-Extra"))
		return name_valid(v) ? NULL
		                     : "is not a valid name (letters, digits and '.', '_', '-' "
		                       "inside; PEP 508)";
	if (!strcmp(name, "Version")) {
		struct pep440 pv;
		return pep440_parse(a, v, &pv, &err) ? NULL : "is not a PEP 440 version";
	}
	if (!strcmp(name, "License-Expression"))
		return spdx_valid(v) ? NULL : "is not a valid SPDX license expression";
	if (!strcmp(name, "Requires-Python")) {
		struct pep440 probe;
		if (!pep440_parse(a, "3.12", &probe, &err))
			return NULL;
		pep440_satisfies(a, &probe, v, &err);
		return err ? arena_printf(a, "is not a valid specifier set: %s", err) : NULL;
	}
	if (!strcmp(name, "Description-Content-Type"))
		return content_type_valid(v) ? NULL
		                             : "is not text/plain, text/x-rst or text/markdown";
	if (!strcmp(name, "Requires-Dist") || !strcmp(name, "Provides-Dist") ||
	    !strcmp(name, "Obsoletes-Dist")) {
		/* PEP 508 starts with a distribution name; what may follow it starts with one of
		 * these (an extras list, a version, a marker, a URL). */
		size_t n = 0;
		while (v[n] && (isalnum((unsigned char)v[n]) || strchr("._-", v[n])))
			n++;
		char *head = arena_strndup(a, v, n);
		while (v[n] == ' ' || v[n] == '\t')
			n++;
		if (!name_valid(head) || (v[n] && !strchr("[(;<>=!~@", v[n])))
			return "does not start with a valid distribution name (PEP 508)";
	}
	if (!strcmp(name, "Project-URL")) {
		const char *comma = strchr(v, ',');
		if (!comma || comma == v || !comma[1])
			return "is not 'label, URL'";
	}
	if (!strcmp(name, "Dynamic")) {
		int g = field_index(v);
		if (g < 0)
			return "names no core metadata field";
		if (g <= 2)
			return "names Metadata-Version, Name or Version, which are never dynamic";
	}
	(void)mv;
	return NULL;
}

bool pkginfo_validate(struct arena *a, struct diag *d, const struct source *src,
                      const struct pkginfo *p)
{
	bool ok = true;
	size_t bad = utf8_bad((const unsigned char *)src->text, src->len);
	if (bad < src->len) {
		int line = line_of(src->text, bad), col = 1;
		for (size_t i = bad; i > 0 && src->text[i - 1] != '\n'; i--)
			col++;
		diag_at(d, DIAG_ERROR, src, line, col,
		        "byte \\x%02x is not UTF-8 (core metadata is UTF-8 text)",
		        (unsigned char)src->text[bad]);
		return false;
	}
	const struct pkginfo_header *mvh = pkginfo_get(p, "Metadata-Version");
	int mv = 0;
	if (mvh && strlen(mvh->value) == 3 && isdigit((unsigned char)mvh->value[0]) &&
	    mvh->value[1] == '.' && isdigit((unsigned char)mvh->value[2]))
		mv = (mvh->value[0] - '0') * 10 + (mvh->value[2] - '0');
	int first[N_FIELDS] = {0};
	for (size_t i = 0; i < p->n; i++) {
		const struct pkginfo_header *h = &p->v[i];
		int f = field_index(h->name);
		if (f < 0) {
			static const char *names[N_FIELDS];
			for (int k = 0; k < N_FIELDS; k++)
				names[k] = fields[k].name;
			const char *mean = diag_did_you_mean(h->name, names, N_FIELDS);
			diag_at(d, DIAG_ERROR, src, h->line, 1,
			        "'%s' is not a core metadata field%s%s%s", h->name,
			        mean ? " (did you mean '" : "", mean ? mean : "",
			        mean ? "'?)" : "");
			ok = false;
			continue;
		}
		const struct field *fd = &fields[f];
		if (!fd->multiple && first[f]) {
			diag_at(d, DIAG_ERROR, src, h->line, 1,
			        "%s appears again (first on line %d): it is a single-use field",
			        fd->name, first[f]);
			ok = false;
			continue;
		}
		if (!first[f])
			first[f] = h->line;
		if (!fd->multiline && strchr(h->value, '\n')) {
			diag_at(d, DIAG_ERROR, src, h->line, 1,
			        "%s spans several lines: its value is one line", fd->name);
			ok = false;
			continue;
		}
		/* A field newer than the declared version is refused from 2.1 on; older files and
		 * PEP 639's two fields are taken as the tools wrote them (distutils put
		 * Download-URL under 1.0, setuptools 56-68 License-File under 2.1, hatchling
		 * License-Expression under 2.3; pip reads them all). */
		bool lenient = fd->since < 21 || (fd->since == 24 && mv >= 21);
		if (mv && fd->since > mv && !lenient) {
			diag_at(d, DIAG_ERROR, src, h->line, 1,
			        "%s came with Metadata-Version %d.%d, not %s", fd->name,
			        fd->since / 10, fd->since % 10, mvh->value);
			ok = false;
			continue;
		}
		const char *why = value_problem(a, f, h->value, mv);
		if (why) {
			diag_at(d, DIAG_ERROR, src, h->line, value_col(h), "%s '%s' %s", fd->name,
			        esc_str(a, ESC_TERM, h->value), why);
			ok = false;
		}
	}
	return ok;
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
