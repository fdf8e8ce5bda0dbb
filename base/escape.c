/* escape.c: one escaping function for every sink untrusted text is printed to (see escape.h). */
#include "base/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes; no overlong forms, surrogates or
 * code points past U+10FFFF), with its code point in *cp; 0 when it is not one. */
static size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	} else if ((p[0] & 0xE0) == 0xC0) {
		len = 2, c = p[0] & 0x1F, min = 0x80;
	} else if ((p[0] & 0xF0) == 0xE0) {
		len = 3, c = p[0] & 0x0F, min = 0x800;
	} else if ((p[0] & 0xF8) == 0xF0) {
		len = 4, c = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/* Code points a terminal acts on or that reorder what is shown: C1 controls (U+009B is a
 * CSI), the line and paragraph separators, and the bidi embeddings, overrides and isolates. */
static bool cp_is_control(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E ||
	       c == 0x200F || c == 0x061C || c == 0xFEFF;
}

static void put_hex(struct strbuf *sb, unsigned char b)
{
	static const char hex[] = "0123456789abcdef";
	char e[4] = {'\\', 'x', hex[b >> 4], hex[b & 15]};
	sb_add(sb, e, 4);
}

/* One ASCII control byte (or DEL) for a terminal: its C escape. */
static void put_c_escape(struct strbuf *sb, unsigned char b)
{
	switch (b) {
	case '\n':
		sb_puts(sb, "\\n");
		break;
	case '\r':
		sb_puts(sb, "\\r");
		break;
	case '\t':
		sb_puts(sb, "\\t");
		break;
	default:
		put_hex(sb, b);
	}
}

/* Appends the n bytes at s to sb, escaped for sink. */
static void esc_add(struct strbuf *sb, enum esc_sink sink, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	bool wf = sink == ESC_WORKFLOW || sink == ESC_WORKFLOW_PROP;
	bool bol = !wf; /* at a line's start (blanks skipped): "::" there is a workflow command */
	sb_add(sb, "", 0);
	for (size_t i = 0; i < n;) {
		unsigned char b = p[i];
		if (bol && b == ':' && i + 1 < n && p[i + 1] == ':') {
			put_hex(sb, b);
			i++;
			bol = false;
			continue;
		}
		if (bol && b != ' ' && b != '\t')
			bol = false;
		if (b >= 0x80) {
			uint32_t cp;
			size_t len = utf8_decode(p + i, n - i, &cp);
			if (len == 0 || cp_is_control(cp)) {
				for (size_t k = 0; k < (len ? len : 1); k++)
					put_hex(sb, p[i + k]);
			} else {
				sb_add(sb, p + i, len);
			}
			i += len ? len : 1;
			continue;
		}
		i++;
		if (wf && (b == '%' || b == '\r' || b == '\n')) {
			sb_puts(sb, b == '%' ? "%25" : b == '\r' ? "%0D" : "%0A");
		} else if (sink == ESC_WORKFLOW_PROP && (b == ':' || b == ',')) {
			sb_puts(sb, b == ':' ? "%3A" : "%2C");
		} else if (sink == ESC_LOG && (b == '\n' || b == '\t')) {
			sb_putc(sb, (char)b);
			bol = bol || b == '\n';
		} else if (b < 0x20 || b == 0x7F) {
			put_c_escape(sb, b);
		} else if (b == '\\' && sink == ESC_TERM) {
			sb_puts(sb, "\\\\");
		} else if (b == '#' && !wf && i + 1 < n && p[i] == '#' && p[i + 1] == '[') {
			sb_putc(sb, '#'); /* "##[" is the runner's own log-line marker: "#\x23[" */
			put_hex(sb, '#');
			i++;
		} else {
			sb_putc(sb, (char)b);
		}
	}
}

/* Appends the JSON text of n bytes at s to sb with DEL and every control code point (all in
 * the BMP) as a \u escape; invalid UTF-8 (jansson never writes it) is kept as it is. */
static void json_add(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	sb_add(sb, "", 0);
	for (size_t i = 0; i < n;) {
		uint32_t cp = p[i];
		size_t len = p[i] < 0x80 ? 1 : utf8_decode(p + i, n - i, &cp);
		if (len && (cp == 0x7F || cp_is_control(cp)))
			sb_printf(sb, "\\u%04X", (unsigned)cp); /* as jansson writes \u001B */
		else
			sb_add(sb, p + i, len ? len : 1);
		i += len ? len : 1;
	}
}

/* Appends the n bytes at s to sb with a backslash before each character Markdown acts on
 * inline (CommonMark's backslash escapes; GitHub's table pipe, math and mentions). */
static void md_add(struct strbuf *sb, const char *s, size_t n)
{
	sb_add(sb, "", 0);
	for (size_t i = 0; i < n; i++) {
		if (strchr("\\`*_[]()<>|!#~&$@", s[i]) && s[i] != '\0')
			sb_putc(sb, '\\');
		sb_putc(sb, s[i]);
	}
}

char *esc_mem(struct arena *a, enum esc_sink sink, const char *s, size_t n)
{
	struct strbuf sb = {0};
	if (sink == ESC_JSON) {
		json_add(&sb, s, n);
	} else if (sink == ESC_MARKDOWN) {
		struct strbuf term = {0};
		esc_add(&term, ESC_TERM, s, n);
		md_add(&sb, term.buf, term.len);
		sb_release(&term);
	} else {
		esc_add(&sb, sink, s, n);
	}
	return sb_to_arena(&sb, a);
}

char *esc_str(struct arena *a, enum esc_sink sink, const char *s)
{
	return s ? esc_mem(a, sink, s, strlen(s)) : arena_strdup(a, "");
}
