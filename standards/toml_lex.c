/* toml_lex.c: the TOML lexer: whitespace and comments, strings and escapes, UTF-8 checks,
 * numbers, booleans and date-times. */
#include "standards/toml_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A value node: the lexer's scalars and the parser's arrays and tables (toml.c) alike. */
struct toml_value *toml_value_new(struct parser *P, enum toml_type t, int line, int col)
{
	struct toml_value *v = arena_alloc(P->a, sizeof(*v));
	v->type = t;
	v->line = line;
	v->col = col;
	return v;
}

/* Reports the first error only; the callers unwind by returning false or NULL. */
bool toml_lex_error(struct parser *P, int line, int col, const char *fmt, ...)
{
	if (P->failed)
		return false;
	P->failed = true;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_at(P->d, DIAG_ERROR, P->src, line, col, "%s", msg);
	return false;
}

/* Describes the next character for "unexpected X" messages. */
const char *toml_lex_char_show(char out[16], int c)
{
	if (c < 0)
		return "end of file";
	if (c == '\n' || c == '\r')
		return "end of line";
	if (c < 0x20 || c == 0x7F)
		snprintf(out, 16, "U+%04X", (unsigned)c);
	else if (c >= 0x80)
		return "a non-ASCII character";
	else
		snprintf(out, 16, "'%c'", c);
	return out;
}

/* ---- whitespace, comments, newlines ---- */

void toml_lex_skip_ws(struct parser *P)
{
	while (peek(P) == ' ' || peek(P) == '\t')
		adv(P);
}

static bool is_newline(const struct parser *P)
{
	return peek(P) == '\n' || (peek(P) == '\r' && peek_at(P, 1) == '\n');
}

/* Consumes a newline (LF or CRLF); the caller has checked is_newline. */
static void eat_newline(struct parser *P)
{
	advn(P, peek(P) == '\r' ? 2 : 1);
}

/* Skips a comment up to (not including) the end of line; false on a control character. */
static bool skip_comment(struct parser *P)
{
	adv(P); /* '#' */
	for (;;) {
		int c = peek(P);
		if (c < 0 || c == '\n' || (c == '\r' && peek_at(P, 1) == '\n'))
			return true;
		if ((c < 0x20 && c != '\t') || c == 0x7F) {
			char cs[16];
			return ERR(P, "%s is not allowed in a comment", toml_lex_char_show(cs, c));
		}
		adv(P);
	}
}

/* After a key/value or a header: spaces, a comment, then a newline or the end of the file. */
bool toml_lex_expect_eol(struct parser *P, const char *after)
{
	toml_lex_skip_ws(P);
	if (peek(P) == '#' && !skip_comment(P))
		return false;
	if (peek(P) < 0)
		return true;
	if (is_newline(P)) {
		eat_newline(P);
		return true;
	}
	char cs[16];
	if (peek(P) == '\r')
		return ERR(P, "carriage return not followed by a newline");
	return ERR(P, "unexpected %s after %s; expected a newline", toml_lex_char_show(cs, peek(P)),
	           after);
}

/* Skips whitespace, comments and newlines (inside arrays). */
bool toml_lex_skip_ws_nl(struct parser *P)
{
	for (;;) {
		toml_lex_skip_ws(P);
		if (peek(P) == '#') {
			if (!skip_comment(P))
				return false;
		} else if (is_newline(P)) {
			eat_newline(P);
		} else {
			return true;
		}
	}
}

/* ---- strings ---- */

static void utf8_put(struct strbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	sb_add(sb, b, n);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes one escape (P->p at the backslash) into P->buf. */
static bool read_escape(struct parser *P)
{
	int line = P->line, col = P->col;
	adv(P); /* '\\' */
	int c = peek(P);
	const char *simple = "b\bt\tn\nf\fr\r\"\"\\\\";
	for (const char *s = simple; *s; s += 2) {
		if (c == s[0]) {
			sb_putc(&P->buf, s[1]);
			adv(P);
			return true;
		}
	}
	if (c != 'u' && c != 'U') {
		char cs[16];
		return toml_lex_error(P, line, col, "invalid escape sequence '\\' followed by %s",
		                      toml_lex_char_show(cs, c));
	}
	int n = c == 'u' ? 4 : 8;
	adv(P);
	uint32_t cp = 0;
	for (int i = 0; i < n; i++) {
		int h = hexval(peek(P));
		if (h < 0)
			return toml_lex_error(P, line, col,
			                      "\\%c escape needs %d hexadecimal digits", c, n);
		cp = cp << 4 | (uint32_t)h;
		adv(P);
	}
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return toml_lex_error(P, line, col,
		                      "escape \\%c%0*" PRIX32 " is not a Unicode scalar value", c,
		                      n, cp);
	utf8_put(&P->buf, cp);
	return true;
}

/* A character that may not appear raw in any string (tab is allowed). */
static bool is_ctrl(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7F;
}

/* Parses a string of any of the four kinds; fills *out and *len (decoded, in the arena). */
bool toml_lex_string(struct parser *P, bool allow_multi, const char **out, size_t *len)
{
	int line = P->line, col = P->col;
	int q = peek(P);
	bool literal = q == '\'';
	bool multi = peek_at(P, 1) == q && peek_at(P, 2) == q;
	sb_reset(&P->buf);
	if (multi && !allow_multi)
		return ERR(P, "a key cannot be a multi-line string");
	advn(P, multi ? 3 : 1);
	if (multi && is_newline(P))
		eat_newline(P); /* a newline right after the opening quotes is trimmed */
	for (;;) {
		int c = peek(P);
		if (c < 0)
			return toml_lex_error(P, line, col, "unterminated string");
		if (c == q) {
			if (!multi) {
				adv(P);
				break;
			}
			size_t n = 0;
			while (peek_at(P, n) == q)
				n++;
			if (n >= 3) {
				/* Up to two quotes may sit right before the closing three. */
				if (n > 5)
					return ERR(
					    P, "too many quotes at the end of a multi-line string");
				sb_add(&P->buf, P->p, n - 3);
				advn(P, n);
				break;
			}
			sb_add(&P->buf, P->p, n);
			advn(P, n);
			continue;
		}
		if (c == '\\' && !literal) {
			if (multi) {
				/* A line-ending backslash eats the newline and the blanks after it.
				 */
				size_t k = 1;
				while (peek_at(P, k) == ' ' || peek_at(P, k) == '\t')
					k++;
				if (peek_at(P, k) == '\n' ||
				    (peek_at(P, k) == '\r' && peek_at(P, k + 1) == '\n')) {
					advn(P, k);
					while (peek(P) == ' ' || peek(P) == '\t' || is_newline(P))
						adv(P);
					continue;
				}
			}
			if (!read_escape(P))
				return false;
			continue;
		}
		if (c == '\n' || (c == '\r' && peek_at(P, 1) == '\n')) {
			if (!multi)
				return toml_lex_error(P, line, col,
				                      "unterminated string (a newline is "
				                      "only allowed in a multi-line string)");
			eat_newline(P);
			sb_putc(&P->buf, '\n'); /* CRLF is read as LF */
			continue;
		}
		if (is_ctrl(c)) {
			char cs[16];
			return ERR(P, "%s must be escaped in a string", toml_lex_char_show(cs, c));
		}
		sb_putc(&P->buf, (char)c);
		adv(P);
	}
	*len = P->buf.len;
	*out = arena_strndup(P->a, P->buf.len ? P->buf.buf : "", P->buf.len);
	return true;
}

/* ---- numbers, booleans, date-times ---- */

/* Reads exactly n digits as a number; -1 when they are not all digits. */
static int digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!is_digit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int days_in_month(int y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* Matches HH:MM:SS[.frac] at s; returns its length or 0 (with *why set). */
static size_t match_time(const char *s, size_t avail, const char **why)
{
	if (avail < 8 || s[2] != ':' || s[5] != ':') {
		*why = "expected HH:MM:SS";
		return 0;
	}
	int h = digits(s, 2), mi = digits(s + 3, 2), sec = digits(s + 6, 2);
	if (h < 0 || mi < 0 || sec < 0) {
		*why = "expected HH:MM:SS";
		return 0;
	}
	if (h > 23 || mi > 59 || sec > 60) {
		*why = h > 23    ? "hour out of range"
		       : mi > 59 ? "minute out of range"
		                 : "second out of range";
		return 0;
	}
	size_t n = 8;
	if (n < avail && s[n] == '.') {
		n++;
		size_t start = n;
		while (n < avail && is_digit((unsigned char)s[n]))
			n++;
		if (n == start) {
			*why = "expected digits after '.'";
			return 0;
		}
	}
	return n;
}

/* Parses a date, date-time or time (P->p at its first digit). */
static struct toml_value *read_datetime(struct parser *P, bool has_date)
{
	int line = P->line, col = P->col;
	const char *s = P->p;
	size_t avail = (size_t)(P->end - P->p), n = 0;
	const char *why = NULL;
	enum toml_type type = TOML_TIME_LOCAL;
	if (has_date) {
		int y = digits(s, 4), m = avail >= 10 && s[7] == '-' ? digits(s + 5, 2) : -1;
		int dd = m >= 0 ? digits(s + 8, 2) : -1;
		if (y < 0 || m < 0 || dd < 0)
			why = "expected YYYY-MM-DD";
		else if (m < 1 || m > 12)
			why = "month out of range";
		else if (dd < 1 || dd > days_in_month(y, m))
			why = "day out of range for the month";
		n = 10;
		type = TOML_DATE_LOCAL;
		if (!why && n < avail &&
		    (s[n] == 'T' || s[n] == 't' ||
		     (s[n] == ' ' && n + 1 < avail && is_digit((unsigned char)s[n + 1])))) {
			size_t tn = match_time(s + n + 1, avail - n - 1, &why);
			n += 1 + tn;
			type = TOML_DATETIME_LOCAL;
		}
	} else {
		n = match_time(s, avail, &why);
	}
	if (!why && type == TOML_DATETIME_LOCAL && n < avail) {
		if (s[n] == 'Z' || s[n] == 'z') {
			n++;
			type = TOML_DATETIME;
		} else if (s[n] == '+' || s[n] == '-') {
			int oh = avail - n >= 6 && s[n + 3] == ':' ? digits(s + n + 1, 2) : -1;
			int om = oh >= 0 ? digits(s + n + 4, 2) : -1;
			if (oh < 0 || om < 0)
				why = "expected a time offset +HH:MM";
			else if (oh > 23 || om > 59)
				why = "time offset out of range";
			n += 6;
			type = TOML_DATETIME;
		}
	}
	if (why) {
		size_t show = 0;
		while (show < avail && show < 40 && s[show] != '\n' && s[show] != '\r')
			show++;
		return toml_lex_error(P, line, col, "invalid date-time '%.*s': %s", (int)show, s,
		                      why),
		       NULL;
	}
	char *text = arena_strndup(P->a, s, n);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == 't' || (i == 10 && text[i] == ' '))
			text[i] = 'T';
		else if (text[i] == 'z')
			text[i] = 'Z';
	}
	advn(P, n);
	struct toml_value *v = toml_value_new(P, type, line, col);
	v->u.str.s = text;
	v->u.str.len = n;
	return v;
}

/* Checks digits separated by single underscores; *why set on failure. */
static bool digit_run(const char *s, size_t n, int (*isd)(int), const char **why)
{
	if (n == 0) {
		*why = "expected digits";
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_') {
			if (i == 0 || i + 1 == n || s[i + 1] == '_') {
				*why = "an underscore must sit between two digits";
				return false;
			}
		} else if (!isd((unsigned char)s[i])) {
			*why = "unexpected character";
			return false;
		}
	}
	return true;
}

static int isdec(int c)
{
	return c >= '0' && c <= '9';
}

static int ishex(int c)
{
	return hexval(c) >= 0;
}

static int isoct(int c)
{
	return c >= '0' && c <= '7';
}

static int isbin(int c)
{
	return c == '0' || c == '1';
}

/* Validates and converts a number token (integer or float) into v. */
static const char *number_convert(struct parser *P, const char *s, size_t n, struct toml_value *v)
{
	const char *why = NULL;
	size_t i = 0;
	bool neg = false;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		i = 1;
	}
	const char *r = s + i;
	size_t rn = n - i;
	if ((rn == 3 && memcmp(r, "inf", 3) == 0) || (rn == 3 && memcmp(r, "nan", 3) == 0)) {
		v->type = TOML_FLOAT;
		v->u.f = r[0] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
		return NULL;
	}
	if (rn >= 2 && r[0] == '0' && (r[1] == 'x' || r[1] == 'o' || r[1] == 'b')) {
		if (i)
			return "a sign is not allowed on a hexadecimal, octal or binary integer";
		int base = r[1] == 'x' ? 16 : r[1] == 'o' ? 8 : 2;
		if (!digit_run(r + 2, rn - 2, base == 16 ? ishex : base == 8 ? isoct : isbin, &why))
			return why;
		uint64_t u = 0;
		for (size_t k = 2; k < rn; k++) {
			if (r[k] == '_')
				continue;
			if (u > (uint64_t)INT64_MAX / (uint64_t)base)
				return "integer does not fit in 64 bits";
			u = u * (uint64_t)base + (uint64_t)hexval((unsigned char)r[k]);
			if (u > (uint64_t)INT64_MAX)
				return "integer does not fit in 64 bits";
		}
		v->type = TOML_INTEGER;
		v->u.i = (int64_t)u;
		return NULL;
	}
	/* Decimal: an integer part, then an optional fraction and exponent (either makes it a
	 * float). */
	size_t ie = 0;
	while (ie < rn && r[ie] != '.' && r[ie] != 'e' && r[ie] != 'E')
		ie++;
	if (!digit_run(r, ie, isdec, &why))
		return why;
	if (ie > 1 && r[0] == '0')
		return "leading zeros are not allowed";
	if (ie == rn) {
		uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
		for (size_t k = 0; k < rn; k++) {
			if (r[k] == '_')
				continue;
			unsigned dgt = (unsigned)(r[k] - '0');
			if (u > (lim - dgt) / 10)
				return "integer does not fit in 64 bits";
			u = u * 10 + dgt;
		}
		v->type = TOML_INTEGER;
		v->u.i = neg ? (int64_t)(0 - u) : (int64_t)u;
		return NULL;
	}
	size_t k = ie;
	if (r[k] == '.') {
		size_t fs = ++k;
		while (k < rn && r[k] != 'e' && r[k] != 'E')
			k++;
		if (!digit_run(r + fs, k - fs, isdec, &why))
			return fs == k ? "expected digits after the decimal point" : why;
	}
	if (k < rn) {
		k++; /* 'e' */
		if (k < rn && (r[k] == '+' || r[k] == '-'))
			k++;
		if (!digit_run(r + k, rn - k, isdec, &why))
			return k == rn ? "expected digits in the exponent" : why;
	}
	char tmp[128], *buf = n < sizeof(tmp) ? tmp : arena_alloc(P->a, n + 1);
	size_t o = 0;
	for (size_t j = 0; j < n; j++)
		if (s[j] != '_')
			buf[o++] = s[j];
	buf[o] = '\0';
	v->type = TOML_FLOAT;
	v->u.f = strtod(buf, NULL);
	return NULL;
}

static bool is_num_char(int c)
{
	return is_bare(c) || c == '+' || c == '.';
}

/* Parses an integer, float, or date/time (they share their first characters). */
struct toml_value *toml_lex_number(struct parser *P)
{
	int c0 = peek(P);
	if (is_digit(c0) && is_digit(peek_at(P, 1))) {
		if (peek_at(P, 2) == ':')
			return read_datetime(P, false);
		if (is_digit(peek_at(P, 2)) && is_digit(peek_at(P, 3)) && peek_at(P, 4) == '-')
			return read_datetime(P, true);
	}
	int line = P->line, col = P->col;
	const char *s = P->p;
	size_t n = 0;
	while (is_num_char(peek_at(P, n)))
		n++;
	struct toml_value *v = toml_value_new(P, TOML_INTEGER, line, col);
	const char *why = number_convert(P, s, n, v);
	if (why)
		return toml_lex_error(P, line, col, "invalid number '%.*s': %s",
		                      (int)(n > 40 ? 40 : n), s, why),
		       NULL;
	advn(P, n);
	return v;
}

/* A keyword (true, false, inf, nan) must not run into a bare key: 'trueish' is not a bool. */
bool toml_lex_match_word(const struct parser *P, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(P->end - P->p) >= n && memcmp(P->p, w, n) == 0 && !is_bare(peek_at(P, n));
}

/* Parses true or false (the caller has checked with toml_lex_match_word). */
struct toml_value *toml_lex_bool(struct parser *P)
{
	struct toml_value *v = toml_value_new(P, TOML_BOOL, P->line, P->col);
	v->u.b = peek(P) == 't';
	advn(P, v->u.b ? 4 : 5);
	return v;
}

/* ---- encoding ---- */

/* Checks that src is valid UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
bool toml_lex_check_utf8(struct parser *P)
{
	const unsigned char *s = (const unsigned char *)P->src->text;
	size_t n = P->src->len;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c < 0x80             ? 1
		             : (c & 0xE0) == 0xC0 ? 2
		             : (c & 0xF0) == 0xE0 ? 3
		             : (c & 0xF8) == 0xF0 ? 4
		                                  : 0;
		uint32_t cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
		bool ok = len > 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++) {
			ok = (s[i + k] & 0xC0) == 0x80;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if (ok && len > 1) {
			static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
			ok = cp >= min[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
		}
		if (!ok) {
			int line, col;
			source_linecol(P->src, i, &line, &col);
			return toml_lex_error(P, line, col, "invalid UTF-8 (byte 0x%02X)", c);
		}
		i += len;
	}
	return true;
}
