/* module_guess.c: a source's PYBIND11_MODULE, read from its text (torch/module_guess.h). */
#include "torch/module_guess.h"

#include <string.h>

#include "base/os-file.h"

static const char module_name[] = "PYBIND11_MODULE";

/* The text being read: where, and the line p is on (1-based, and where it starts). */
struct lexer {
	const char *p, *end;
	const char *line_start;
	size_t line;
	bool uncertain; /* a raw string's delimiter that is not one: no answer */
};

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || (unsigned char)c >= 0x80;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Whether p starts a backslash-newline (with or without a carriage return); *n is its length. */
static bool splice_at(const struct lexer *lx, const char *p, size_t *n)
{
	if (p >= lx->end || *p != '\\')
		return false;
	if (p + 1 < lx->end && p[1] == '\n') {
		*n = 2;
		return true;
	}
	if (p + 2 < lx->end && p[1] == '\r' && p[2] == '\n') {
		*n = 3;
		return true;
	}
	return false;
}

/* Steps over the character at lx->p, counting a newline. */
static void step(struct lexer *lx)
{
	if (*lx->p == '\n') {
		lx->line++;
		lx->line_start = lx->p + 1;
	}
	lx->p++;
}

/* Steps over n characters. */
static void step_n(struct lexer *lx, size_t n)
{
	while (n-- && lx->p < lx->end)
		step(lx);
}

/* Steps over a backslash-newline at lx->p; false where there is none. */
static bool splice(struct lexer *lx)
{
	size_t n;
	if (!splice_at(lx, lx->p, &n))
		return false;
	step_n(lx, n);
	return true;
}

/* Steps over a comment at lx->p (a block comment to its end, a line comment to its newline,
 * which is left, with its continuation lines); false where there is none. */
static bool comment(struct lexer *lx)
{
	if (lx->p + 1 >= lx->end || lx->p[0] != '/')
		return false;
	if (lx->p[1] == '*') {
		step_n(lx, 2);
		while (lx->p < lx->end &&
		       !(lx->p[0] == '*' && lx->p + 1 < lx->end && lx->p[1] == '/'))
			step(lx);
		step_n(lx, 2);
		return true;
	}
	if (lx->p[1] != '/')
		return false;
	while (lx->p < lx->end && *lx->p != '\n')
		if (!splice(lx))
			step(lx);
	return true;
}

/* Steps over a string or character literal from its opening quote at lx->p: to its closing
 * quote, or to the newline that ends one left open (left, as a directive's end). */
static void quoted(struct lexer *lx)
{
	char q = *lx->p;
	step(lx);
	while (lx->p < lx->end && *lx->p != q && *lx->p != '\n') {
		if (splice(lx))
			continue;
		if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n')
			step(lx);
		step(lx);
	}
	if (lx->p < lx->end && *lx->p == q)
		step(lx);
}

/* Steps over a raw string from its quote at lx->p (R"delim( ... )delim"); a delimiter that is
 * not one (over 16 characters, or a space, backslash or parenthesis in it) sets uncertain. */
static void raw_string(struct lexer *lx)
{
	const char *d = lx->p + 1, *q = d;
	while (q < lx->end && q - d <= 16 && *q != '(' && *q != ')' && *q != '\\' && *q != ' ' &&
	       *q != '\t' && *q != '\n' && *q != '\r' && *q != '"')
		q++;
	if (q >= lx->end || *q != '(' || q - d > 16) {
		lx->uncertain = true;
		return;
	}
	size_t dn = (size_t)(q - d);
	step_n(lx, dn + 2);
	while (lx->p < lx->end) {
		if (*lx->p == ')' && (size_t)(lx->end - lx->p) > dn + 1 &&
		    !memcmp(lx->p + 1, d, dn) && lx->p[dn + 1] == '"') {
			step_n(lx, dn + 2);
			return;
		}
		step(lx);
	}
}

/* Whether identifier [s, s + n) is a raw string's prefix (R, LR, uR, UR, u8R). */
static bool raw_prefix(const char *s, size_t n)
{
	static const char *const prefixes[] = {"R", "LR", "uR", "UR", "u8R"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strlen(prefixes[i]) == n && !memcmp(s, prefixes[i], n))
			return true;
	return false;
}

/* Steps over spaces and tabs (and backslash-newlines) within a line. */
static void blanks(struct lexer *lx)
{
	for (;;) {
		if (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
		                        *lx->p == '\f' || *lx->p == '\v'))
			step(lx);
		else if (!splice(lx))
			return;
	}
}

/* Reads an identifier at lx->p into [*s, *s + *n) (spliced identifiers are read in parts). */
static void identifier(struct lexer *lx, const char **s, size_t *n)
{
	*s = lx->p;
	while (lx->p < lx->end && ident_char(*lx->p))
		step(lx);
	*n = (size_t)(lx->p - *s);
}

static bool is_name(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && !memcmp(s, name, n);
}

/* Reads one directive from its '#' to the newline that ends it (left): *depth follows its
 * conditionals, and *defines is set by a #define or #undef of PYBIND11_MODULE. */
static void directive(struct lexer *lx, size_t *depth, bool *defines)
{
	step(lx);
	for (;;) {
		blanks(lx);
		/* A block comment between '#' and the name is a space. */
		if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '*')
			comment(lx);
		else
			break;
	}
	const char *s;
	size_t n;
	identifier(lx, &s, &n);
	if (is_name(s, n, "if") || is_name(s, n, "ifdef") || is_name(s, n, "ifndef")) {
		(*depth)++;
	} else if (is_name(s, n, "endif")) {
		if (*depth)
			(*depth)--;
	} else if (is_name(s, n, "define") || is_name(s, n, "undef")) {
		blanks(lx);
		identifier(lx, &s, &n);
		if (is_name(s, n, module_name))
			*defines = true;
	}
	while (lx->p < lx->end && *lx->p != '\n') {
		if (splice(lx) || comment(lx))
			continue;
		if (*lx->p == '"' || *lx->p == '\'')
			quoted(lx);
		else
			step(lx);
	}
}

/* Whether the next token after lx->p (past whitespace, newlines and comments) is '('; lx is
 * a copy, left where it stopped. */
static bool opens_call(struct lexer lx)
{
	while (lx.p < lx.end) {
		if (*lx.p == ' ' || *lx.p == '\t' || *lx.p == '\r' || *lx.p == '\n' ||
		    *lx.p == '\f' || *lx.p == '\v')
			step(&lx);
		else if (!splice(&lx) && !comment(&lx))
			return *lx.p == '(';
	}
	return false;
}

/* Steps over a preprocessing number at lx->p (digit separators and exponent signs in it). */
static void number(struct lexer *lx)
{
	step(lx);
	while (lx->p < lx->end) {
		char c = *lx->p, prev = lx->p[-1];
		if (ident_char(c) || c == '.' ||
		    ((c == '+' || c == '-') &&
		     (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P')) ||
		    (c == '\'' && lx->p + 1 < lx->end && ident_char(lx->p[1])))
			step(lx);
		else
			break;
	}
}

bool module_guess(const char *text, size_t len, struct module_use *out)
{
	struct lexer lx = {.p = text, .end = text + len, .line_start = text, .line = 1};
	/* A byte-order mark is no token. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		lx.p += 3;
	size_t depth = 0;
	bool bol = true, found = false, defines = false;
	while (lx.p < lx.end && !lx.uncertain) {
		char c = *lx.p;
		if (c == '\n') {
			bol = true;
			step(&lx);
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			step(&lx);
			continue;
		}
		if (splice(&lx) || comment(&lx))
			continue;
		if (c == '#' && bol) {
			directive(&lx, &depth, &defines);
			continue;
		}
		bol = false;
		if (c == '"' || c == '\'') {
			quoted(&lx);
		} else if (digit(c) || (c == '.' && lx.p + 1 < lx.end && digit(lx.p[1]))) {
			number(&lx);
		} else if (ident_char(c)) {
			size_t line = lx.line, col = (size_t)(lx.p - lx.line_start) + 1;
			const char *s;
			size_t n;
			identifier(&lx, &s, &n);
			if (lx.p < lx.end && *lx.p == '"' && raw_prefix(s, n))
				raw_string(&lx);
			else if (!found && depth == 0 && is_name(s, n, module_name) &&
			         opens_call(lx)) {
				found = true;
				*out = (struct module_use){.line = line, .col = col};
			}
		} else {
			step(&lx);
		}
	}
	return found && !defines && !lx.uncertain;
}

bool module_guess_file(struct arena *a, const char *path, struct module_use *out)
{
	struct source src;
	struct diag quiet = {0};
	return os_read_file_max(a, &quiet, path, MODULE_GUESS_MAX, "a binding source", &src) &&
	       module_guess(src.text, src.len, out);
}
