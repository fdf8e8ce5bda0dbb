/* toml_internal.h: what the TOML parser's files share with each other (not public). */
#ifndef CUWHEEL_STANDARDS_TOML_INTERNAL_H
#define CUWHEEL_STANDARDS_TOML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "standards/toml.h"

/* Table and array states that decide what may be added later (the redefinition rules). */
enum {
	TF_DEFINED = 1u << 0, /* table opened by its own [header] */
	TF_DOTTED =
	    1u << 1, /* table created (or entered) by dotted keys: no [header] may name it */
	TF_INLINE = 1u << 2, /* inline table or static array: closed for good */
	TF_AOT = 1u << 3,    /* array made by [[header]]: only [[header]] may append */
};

/* One part of a dotted key, decoded, with where it was written. */
struct key_part {
	const char *s;
	size_t len;
	int line, col;
};

/* The parse context, passed first to every function below. */
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

/* Returns the byte k past the cursor, or -1 past the end of the input. */
static inline int peek_at(const struct parser *P, size_t k)
{
	return (size_t)(P->end - P->p) > k ? (unsigned char)P->p[k] : -1;
}

/* Returns the byte at the cursor, or -1 at the end of the input. */
static inline int peek(const struct parser *P)
{
	return peek_at(P, 0);
}

/* Consumes one byte, keeping line and column (in characters) up to date. */
static inline void adv(struct parser *P)
{
	unsigned char c = (unsigned char)*P->p++;
	if (c == '\n') {
		P->line++;
		P->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		P->col++;
	}
}

/* Consumes n bytes (the caller has checked they are there). */
static inline void advn(struct parser *P, size_t n)
{
	while (n--)
		adv(P);
}

/* True for a character of a bare key (A-Z a-z 0-9 - _). */
static inline bool is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* True for an ASCII decimal digit. */
static inline bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Allocates a value of type t at line:col in the parser's arena (zeroed; never fails). */
struct toml_value *toml_value_new(struct parser *P, enum toml_type t, int line, int col);

/* Reports an error at line:col unless one was already reported; always returns false. */
bool toml_lex_error(struct parser *P, int line, int col, const char *fmt, ...) CW_PRINTF(4, 5);
/* Reports an error at the cursor; always returns false. */
#define ERR(P, ...) toml_lex_error((P), (P)->line, (P)->col, __VA_ARGS__)
/* Describes character c (or -1 for end of file) for "unexpected X" messages; uses out. */
const char *toml_lex_char_show(char out[16], int c);
/* Skips spaces and tabs. */
void toml_lex_skip_ws(struct parser *P);
/* Skips whitespace, comments and newlines; false (reported) on a bad character in a comment. */
bool toml_lex_skip_ws_nl(struct parser *P);
/* Expects blanks, a comment, then a newline or EOF after `after`; false (reported) if not. */
bool toml_lex_expect_eol(struct parser *P, const char *after);
/* Parses any string kind into *out, *len (decoded, in the arena); false (reported) if invalid. */
bool toml_lex_string(struct parser *P, bool allow_multi, const char **out, size_t *len);
/* True when the input at the cursor is word w not followed by a bare-key character. */
bool toml_lex_match_word(const struct parser *P, const char *w);
/* Parses true or false (the caller has checked with toml_lex_match_word); never fails. */
struct toml_value *toml_lex_bool(struct parser *P);
/* Parses an integer, float or date-time at the cursor; NULL (reported) when invalid. */
struct toml_value *toml_lex_number(struct parser *P);
/* Checks the whole source is valid UTF-8; false (reported at the bad byte) otherwise. */
bool toml_lex_check_utf8(struct parser *P);

#endif
