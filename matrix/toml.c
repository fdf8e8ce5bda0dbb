/* toml.c: a strict TOML 1.0 parser (recursive descent over bytes) and toml-test's tagged JSON. */
#include "matrix/toml.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

/* Table and array states that decide what may be added later (the redefinition rules). */
enum {
	TF_DEFINED = 1u << 0, /* table opened by its own [header] */
	TF_DOTTED =
	    1u << 1, /* table created (or entered) by dotted keys: no [header] may name it */
	TF_INLINE = 1u << 2, /* inline table or static array: closed for good */
	TF_AOT = 1u << 3,    /* array made by [[header]]: only [[header]] may append */
};

struct key_part {
	const char *s;
	size_t len;
	int line, col;
};

struct parser {
	struct arena *a;
	struct diag *d;
	const struct source *src;
	const char *p, *end;
	int line, col;           /* of *p */
	struct toml_value *root; /* the document */
	struct toml_value *cur;  /* table the current section's key/values go to */
	int cur_depth;           /* its depth (root 0) */
	struct strbuf buf;       /* scratch for decoding strings */
	bool failed;
};

static int peek_at(const struct parser *P, size_t k)
{
	return (size_t)(P->end - P->p) > k ? (unsigned char)P->p[k] : -1;
}

static int peek(const struct parser *P)
{
	return peek_at(P, 0);
}

/* Consumes one byte, keeping line and column (in characters) up to date. */
static void adv(struct parser *P)
{
	unsigned char c = (unsigned char)*P->p++;
	if (c == '\n') {
		P->line++;
		P->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		P->col++;
	}
}

static void advn(struct parser *P, size_t n)
{
	while (n--)
		adv(P);
}

static bool err_at(struct parser *P, int line, int col, const char *fmt, ...) CW_PRINTF(4, 5);

/* Reports the first error only; the callers unwind by returning false or NULL. */
static bool err_at(struct parser *P, int line, int col, const char *fmt, ...)
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

#define ERR(P, ...) err_at((P), (P)->line, (P)->col, __VA_ARGS__)

/* Renders a key for a message: control characters escaped, cut after ~70 bytes on a
 * character boundary (keys are valid UTF-8 by then). */
static const char *key_show(char out[80], const char *s, size_t len)
{
	size_t o = 0, i = 0;
	while (i < len && o < 70) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		if (c < 0x20 || c == 0x7F) {
			o += (size_t)snprintf(out + o, 80 - o, "\\x%02x", c);
		} else {
			if (i + n > len)
				break;
			memcpy(out + o, s + i, n);
			o += n;
		}
		i += n;
	}
	if (i < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

/* Describes the next character for "unexpected X" messages. */
static const char *char_show(char out[16], int c)
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

/* ---- the tree ---- */

static struct toml_value *value_new(struct parser *P, enum toml_type t, int line, int col)
{
	struct toml_value *v = arena_alloc(P->a, sizeof(*v));
	v->type = t;
	v->line = line;
	v->col = col;
	return v;
}

static struct toml_kv *table_find(const struct toml_value *t, const char *k, size_t klen)
{
	for (size_t i = 0; i < t->u.table.len; i++) {
		struct toml_kv *kv = &t->u.table.items[i];
		if (kv->keylen == klen && memcmp(kv->key, k, klen) == 0)
			return kv;
	}
	return NULL;
}

static struct toml_kv *table_add(struct parser *P, struct toml_value *t, const struct key_part *k,
                                 struct toml_value *v)
{
	if (t->u.table.len == t->u.table.cap) {
		size_t ncap = t->u.table.cap ? t->u.table.cap * 2 : 4;
		t->u.table.items = arena_realloc(P->a, t->u.table.items, t->u.table.cap, ncap,
		                                 sizeof(struct toml_kv));
		t->u.table.cap = ncap;
	}
	struct toml_kv *kv = &t->u.table.items[t->u.table.len++];
	kv->key = k->s;
	kv->keylen = k->len;
	kv->line = k->line;
	kv->col = k->col;
	kv->value = v;
	return kv;
}

static void array_push(struct parser *P, struct toml_value *arr, struct toml_value *v)
{
	if (arr->u.array.len == arr->u.array.cap) {
		size_t ncap = arr->u.array.cap ? arr->u.array.cap * 2 : 4;
		arr->u.array.items = arena_realloc(P->a, arr->u.array.items, arr->u.array.cap, ncap,
		                                   sizeof(struct toml_value *));
		arr->u.array.cap = ncap;
	}
	arr->u.array.items[arr->u.array.len++] = v;
}

static const char *what_is(const struct toml_value *v)
{
	if (v->type == TOML_TABLE)
		return v->flags & TF_INLINE ? "an inline table" : "a table";
	if (v->type == TOML_ARRAY)
		return v->flags & TF_AOT ? "an array of tables" : "an array";
	switch (v->type) {
	case TOML_STRING:
		return "a string";
	case TOML_INTEGER:
		return "an integer";
	case TOML_FLOAT:
		return "a float";
	case TOML_BOOL:
		return "a bool";
	default:
		return "a date-time";
	}
}

/* ---- whitespace, comments, newlines ---- */

static void skip_ws(struct parser *P)
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
			return ERR(P, "%s is not allowed in a comment", char_show(cs, c));
		}
		adv(P);
	}
}

/* After a key/value or a header: spaces, a comment, then a newline or the end of the file. */
static bool expect_eol(struct parser *P, const char *after)
{
	skip_ws(P);
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
	return ERR(P, "unexpected %s after %s; expected a newline", char_show(cs, peek(P)), after);
}

/* Skips whitespace, comments and newlines (inside arrays). */
static bool skip_ws_nl(struct parser *P)
{
	for (;;) {
		skip_ws(P);
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
		return err_at(P, line, col, "invalid escape sequence '\\' followed by %s",
		              char_show(cs, c));
	}
	int n = c == 'u' ? 4 : 8;
	adv(P);
	uint32_t cp = 0;
	for (int i = 0; i < n; i++) {
		int h = hexval(peek(P));
		if (h < 0)
			return err_at(P, line, col, "\\%c escape needs %d hexadecimal digits", c,
			              n);
		cp = cp << 4 | (uint32_t)h;
		adv(P);
	}
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return err_at(P, line, col,
		              "escape \\%c%0*" PRIX32 " is not a Unicode scalar value", c, n, cp);
	utf8_put(&P->buf, cp);
	return true;
}

/* A character that may not appear raw in any string (tab is allowed). */
static bool is_ctrl(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7F;
}

/* Parses a string of any of the four kinds; fills *out and *len (decoded, in the arena). */
static bool read_string(struct parser *P, bool allow_multi, const char **out, size_t *len)
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
			return err_at(P, line, col, "unterminated string");
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
				return err_at(P, line, col,
				              "unterminated string (a newline is "
				              "only allowed in a multi-line string)");
			eat_newline(P);
			sb_putc(&P->buf, '\n'); /* CRLF is read as LF */
			continue;
		}
		if (is_ctrl(c)) {
			char cs[16];
			return ERR(P, "%s must be escaped in a string", char_show(cs, c));
		}
		sb_putc(&P->buf, (char)c);
		adv(P);
	}
	*len = P->buf.len;
	*out = arena_strndup(P->a, P->buf.len ? P->buf.buf : "", P->buf.len);
	return true;
}

/* ---- keys ---- */

static bool is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* Parses a (dotted) key into parts; *n gets the number of parts. */
static bool read_key(struct parser *P, struct key_part **parts, size_t *n)
{
	size_t cap = 0;
	*n = 0;
	*parts = NULL;
	for (;;) {
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			*parts = arena_realloc(P->a, *parts, cap, ncap, sizeof(**parts));
			cap = ncap;
		}
		struct key_part *k = &(*parts)[(*n)++];
		k->line = P->line;
		k->col = P->col;
		int c = peek(P);
		if (c == '"' || c == '\'') {
			if (!read_string(P, false, &k->s, &k->len))
				return false;
		} else if (is_bare(c)) {
			const char *s = P->p;
			while (is_bare(peek(P)))
				adv(P);
			k->len = (size_t)(P->p - s);
			k->s = arena_strndup(P->a, s, k->len);
		} else {
			char cs[16];
			if (*n > 1)
				return ERR(P, "expected a key after '.', found %s",
				           char_show(cs, c));
			return ERR(P, "expected a key, found %s", char_show(cs, c));
		}
		skip_ws(P);
		if (peek(P) != '.')
			return true;
		adv(P);
		skip_ws(P);
	}
}

/* ---- values ---- */

static struct toml_value *read_value(struct parser *P, int depth);
static bool add_keyval(struct parser *P, struct toml_value *t, int depth);

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

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
		return err_at(P, line, col, "invalid date-time '%.*s': %s", (int)show, s, why),
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
	struct toml_value *v = value_new(P, type, line, col);
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
static struct toml_value *read_number(struct parser *P)
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
	struct toml_value *v = value_new(P, TOML_INTEGER, line, col);
	const char *why = number_convert(P, s, n, v);
	if (why)
		return err_at(P, line, col, "invalid number '%.*s': %s", (int)(n > 40 ? 40 : n), s,
		              why),
		       NULL;
	advn(P, n);
	return v;
}

static bool too_deep(struct parser *P, int depth)
{
	if (depth <= TOML_MAX_DEPTH)
		return false;
	ERR(P, "nesting deeper than %d levels", TOML_MAX_DEPTH);
	return true;
}

static struct toml_value *read_array(struct parser *P, int depth)
{
	if (too_deep(P, depth))
		return NULL;
	struct toml_value *arr = value_new(P, TOML_ARRAY, P->line, P->col);
	arr->flags = TF_INLINE;
	adv(P); /* '[' */
	for (;;) {
		if (!skip_ws_nl(P))
			return NULL;
		if (peek(P) == ']')
			break;
		struct toml_value *v = read_value(P, depth + 1);
		if (!v)
			return NULL;
		array_push(P, arr, v);
		if (!skip_ws_nl(P))
			return NULL;
		if (peek(P) == ',') {
			adv(P);
			continue;
		}
		if (peek(P) == ']')
			break;
		char cs[16];
		return ERR(P, "expected ',' or ']' in array, found %s", char_show(cs, peek(P))),
		       NULL;
	}
	adv(P); /* ']' */
	return arr;
}

static struct toml_value *read_inline_table(struct parser *P, int depth)
{
	if (too_deep(P, depth))
		return NULL;
	struct toml_value *t = value_new(P, TOML_TABLE, P->line, P->col);
	adv(P); /* '{' */
	skip_ws(P);
	if (peek(P) != '}') {
		for (;;) {
			skip_ws(P);
			if (peek(P) == '\n' || peek(P) == '\r')
				return ERR(P, "an inline table must be on one line"), NULL;
			if (!add_keyval(P, t, depth))
				return NULL;
			skip_ws(P);
			if (peek(P) == '}')
				break;
			if (peek(P) != ',') {
				char cs[16];
				if (peek(P) == '\n' || peek(P) == '\r')
					return ERR(P, "an inline table must be on one line"), NULL;
				return ERR(P, "expected ',' or '}' in inline table, found %s",
				           char_show(cs, peek(P))),
				       NULL;
			}
			adv(P);
			skip_ws(P);
			if (peek(P) == '}')
				return ERR(P, "trailing comma in inline table"), NULL;
		}
	}
	adv(P); /* '}' */
	/* Sub-tables made by dotted keys inside stay reachable only through t, so marking t
	 * alone closes them all. */
	t->flags |= TF_INLINE;
	return t;
}

static bool match_word(const struct parser *P, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(P->end - P->p) >= n && memcmp(P->p, w, n) == 0 && !is_bare(peek_at(P, n));
}

/* Parses any value; depth is the nesting level the value will sit at. */
static struct toml_value *read_value(struct parser *P, int depth)
{
	int c = peek(P);
	int line = P->line, col = P->col;
	if (c == '"' || c == '\'') {
		struct toml_value *v = value_new(P, TOML_STRING, line, col);
		if (!read_string(P, true, &v->u.str.s, &v->u.str.len))
			return NULL;
		return v;
	}
	if (c == '[')
		return read_array(P, depth);
	if (c == '{')
		return read_inline_table(P, depth);
	if (match_word(P, "true") || match_word(P, "false")) {
		struct toml_value *v = value_new(P, TOML_BOOL, line, col);
		v->u.b = c == 't';
		advn(P, v->u.b ? 4 : 5);
		return v;
	}
	if (is_digit(c) || c == '+' || c == '-' || match_word(P, "inf") || match_word(P, "nan"))
		return read_number(P);
	char cs[16];
	if (c < 0 || c == '\n' || c == '\r' || c == '#')
		return ERR(P, "expected a value"), NULL;
	if (is_bare(c))
		return ERR(P, "invalid value (strings must be quoted)"), NULL;
	return ERR(P, "expected a value, found %s", char_show(cs, c)), NULL;
}

/* ---- key/values and headers: the redefinition rules ---- */

/* Parses `key = value` and adds it under table t, which sits at depth. */
static bool add_keyval(struct parser *P, struct toml_value *t, int depth)
{
	struct key_part *parts;
	size_t n;
	if (!read_key(P, &parts, &n))
		return false;
	if (peek(P) != '=') {
		char cs[16];
		return ERR(P, "expected '=' after key, found %s", char_show(cs, peek(P)));
	}
	if (n > TOML_MAX_DEPTH || depth + (int)n > TOML_MAX_DEPTH + 1)
		return err_at(P, parts[0].line, parts[0].col, "key nests deeper than %d levels",
		              TOML_MAX_DEPTH);
	char ks[80];
	/* Walk (or create) the tables the dotted key names before the value is parsed, so the
	 * value knows its depth. */
	for (size_t i = 0; i + 1 < n; i++) {
		struct key_part *k = &parts[i];
		struct toml_kv *kv = table_find(t, k->s, k->len);
		if (!kv) {
			struct toml_value *nt = value_new(P, TOML_TABLE, k->line, k->col);
			nt->flags = TF_DOTTED;
			t = table_add(P, t, k, nt)->value;
			continue;
		}
		struct toml_value *v = kv->value;
		if (v->type != TOML_TABLE || (v->flags & TF_INLINE))
			return err_at(P, k->line, k->col,
			              "cannot add keys to '%s': it is %s (defined at line %d)",
			              key_show(ks, k->s, k->len), what_is(v), kv->line);
		if (v->flags & TF_DEFINED)
			return err_at(P, k->line, k->col,
			              "cannot add keys to table '%s' with a dotted key: it has its "
			              "own [header] at line %d",
			              key_show(ks, k->s, k->len), v->line);
		v->flags |= TF_DOTTED;
		t = v;
	}
	struct key_part *last = &parts[n - 1];
	struct toml_kv *dup = table_find(t, last->s, last->len);
	if (dup)
		return err_at(P, last->line, last->col,
		              "duplicate key '%s' (first defined at line %d)",
		              key_show(ks, last->s, last->len), dup->line);
	adv(P); /* '=' */
	skip_ws(P);
	struct toml_value *v = read_value(P, depth + (int)n);
	if (!v)
		return false;
	table_add(P, t, last, v);
	return true;
}

/* Parses a [table] or [[array of tables]] header and makes its table the current one. */
static bool read_header(struct parser *P)
{
	int line = P->line, col = P->col;
	bool aot = peek_at(P, 1) == '[';
	advn(P, aot ? 2 : 1);
	skip_ws(P);
	struct key_part *parts;
	size_t n;
	if (!read_key(P, &parts, &n))
		return false;
	if (peek(P) != ']' || (aot && peek_at(P, 1) != ']')) {
		char cs[16];
		return ERR(P, "expected '%s' to close the table header, found %s", aot ? "]]" : "]",
		           char_show(cs, peek(P)));
	}
	advn(P, aot ? 2 : 1);
	char ks[80];
	struct toml_value *t = P->root;
	int depth = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		struct key_part *k = &parts[i];
		struct toml_kv *kv = table_find(t, k->s, k->len);
		if (!kv) {
			struct toml_value *nt = value_new(P, TOML_TABLE, k->line, k->col);
			t = table_add(P, t, k, nt)->value;
		} else if (kv->value->type == TOML_TABLE && !(kv->value->flags & TF_INLINE)) {
			t = kv->value;
		} else if (kv->value->type == TOML_ARRAY && (kv->value->flags & TF_AOT)) {
			struct toml_value *arr = kv->value;
			t = arr->u.array.items[arr->u.array.len - 1];
			depth++;
		} else {
			return err_at(P, k->line, k->col,
			              "cannot define a table under '%s': it is %s (defined at line "
			              "%d)",
			              key_show(ks, k->s, k->len), what_is(kv->value), kv->line);
		}
		if (too_deep(P, ++depth))
			return false;
	}
	struct key_part *k = &parts[n - 1];
	struct toml_kv *kv = table_find(t, k->s, k->len);
	if (too_deep(P, depth + 1 + aot))
		return false;
	P->cur_depth = depth + 1 + aot;
	if (aot) {
		struct toml_value *arr;
		if (!kv) {
			arr = value_new(P, TOML_ARRAY, line, col);
			arr->flags = TF_AOT;
			table_add(P, t, k, arr);
		} else if (kv->value->type == TOML_ARRAY && (kv->value->flags & TF_AOT)) {
			arr = kv->value;
		} else {
			return err_at(P, k->line, k->col,
			              "cannot define array of tables '%s': it is already %s "
			              "(defined at line %d)",
			              key_show(ks, k->s, k->len), what_is(kv->value), kv->line);
		}
		P->cur = value_new(P, TOML_TABLE, line, col);
		P->cur->flags = TF_DEFINED;
		array_push(P, arr, P->cur);
		return true;
	}
	if (!kv) {
		P->cur = value_new(P, TOML_TABLE, line, col);
		P->cur->flags = TF_DEFINED;
		table_add(P, t, k, P->cur);
		return true;
	}
	struct toml_value *v = kv->value;
	if (v->type == TOML_TABLE && !(v->flags & (TF_INLINE | TF_DEFINED | TF_DOTTED))) {
		/* Created implicitly by an earlier [a.b.c]: this header is its definition. */
		v->flags |= TF_DEFINED;
		v->line = line;
		v->col = col;
		kv->line = k->line;
		kv->col = k->col;
		P->cur = v;
		return true;
	}
	if (v->type == TOML_TABLE)
		return err_at(P, k->line, k->col, "table '%s' is already defined (at line %d)%s",
		              key_show(ks, k->s, k->len), v->line,
		              v->flags & TF_DOTTED ? " by dotted keys" : "");
	return err_at(P, k->line, k->col, "cannot define table '%s': it is already %s (at line %d)",
	              key_show(ks, k->s, k->len), what_is(v), kv->line);
}

/* Checks that src is valid UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
static bool check_utf8(struct parser *P)
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
			return err_at(P, line, col, "invalid UTF-8 (byte 0x%02X)", c);
		}
		i += len;
	}
	return true;
}

struct toml_value *toml_parse(struct arena *a, struct diag *d, const struct source *src)
{
	struct parser P = {.a = a,
	                   .d = d,
	                   .src = src,
	                   .p = src->text,
	                   .end = src->text + src->len,
	                   .line = 1,
	                   .col = 1};
	P.root = value_new(&P, TOML_TABLE, 1, 1);
	P.root->flags = TF_DEFINED;
	P.cur = P.root;
	bool ok = check_utf8(&P);
	if (ok && src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0)
		P.p += 3; /* a byte order mark is allowed and ignored */
	while (ok) {
		skip_ws(&P);
		int c = peek(&P);
		if (c < 0)
			break;
		if (c == '#' || c == '\n' || c == '\r')
			ok = expect_eol(&P, "a comment");
		else if (c == '[')
			ok = read_header(&P) && expect_eol(&P, "a table header");
		else
			ok = add_keyval(&P, P.cur, P.cur_depth) &&
			     expect_eol(&P, "a key/value pair");
	}
	sb_release(&P.buf);
	return ok ? P.root : NULL;
}

/* ---- queries ---- */

const struct toml_kv *toml_get_kv(const struct toml_value *t, const char *key)
{
	if (!t || t->type != TOML_TABLE || !key)
		return NULL;
	return table_find(t, key, strlen(key));
}

const struct toml_value *toml_get(const struct toml_value *t, const char *key)
{
	const struct toml_kv *kv = toml_get_kv(t, key);
	return kv ? kv->value : NULL;
}

const char *toml_type_name(enum toml_type t)
{
	switch (t) {
#define X(e, s)                                                                                    \
	case e:                                                                                    \
		return s;
		TOML_TYPES(X)
#undef X
	}
	return "unknown";
}

/* ---- tagged JSON ---- */

static void json_string(struct strbuf *sb, const char *s, size_t n)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = c == '"'    ? "\\\""
		                : c == '\\' ? "\\\\"
		                : c == '\n' ? "\\n"
		                : c == '\t' ? "\\t"
		                : c == '\r' ? "\\r"
		                : c == '\b' ? "\\b"
		                : c == '\f' ? "\\f"
		                            : NULL;
		if (e)
			sb_puts(sb, e);
		else if (c < 0x20 || c == 0x7F)
			sb_printf(sb, "\\u%04x", c);
		else
			sb_putc(sb, (char)c);
	}
	sb_putc(sb, '"');
}

void toml_to_tagged_json(const struct toml_value *v, struct strbuf *sb)
{
	switch (v->type) {
	case TOML_TABLE:
		sb_putc(sb, '{');
		for (size_t i = 0; i < v->u.table.len; i++) {
			const struct toml_kv *kv = &v->u.table.items[i];
			if (i)
				sb_putc(sb, ',');
			json_string(sb, kv->key, kv->keylen);
			sb_putc(sb, ':');
			toml_to_tagged_json(kv->value, sb);
		}
		sb_putc(sb, '}');
		return;
	case TOML_ARRAY:
		sb_putc(sb, '[');
		for (size_t i = 0; i < v->u.array.len; i++) {
			if (i)
				sb_putc(sb, ',');
			toml_to_tagged_json(v->u.array.items[i], sb);
		}
		sb_putc(sb, ']');
		return;
	default:
		break;
	}
	sb_printf(sb, "{\"type\":\"%s\",\"value\":", toml_type_name(v->type));
	switch (v->type) {
	case TOML_INTEGER:
		sb_printf(sb, "\"%" PRId64 "\"", v->u.i);
		break;
	case TOML_FLOAT:
		if (isnan(v->u.f))
			sb_puts(sb, "\"nan\"");
		else if (isinf(v->u.f))
			sb_puts(sb, v->u.f < 0 ? "\"-inf\"" : "\"inf\"");
		else
			sb_printf(sb, "\"%.17g\"", v->u.f);
		break;
	case TOML_BOOL:
		sb_puts(sb, v->u.b ? "\"true\"" : "\"false\"");
		break;
	default:
		json_string(sb, v->u.str.s, v->u.str.len);
		break;
	}
	sb_putc(sb, '}');
}
