/* toml.h: a strict TOML 1.0 parser producing a tree that remembers where every key and value
 * came from, so later phases can report errors at file:line:col. */
#ifndef CUWHEEL_STANDARDS_TOML_H
#define CUWHEEL_STANDARDS_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

#define TOML_TYPES(X)                                                                              \
	X(TOML_TABLE, "table")                                                                     \
	X(TOML_ARRAY, "array")                                                                     \
	X(TOML_STRING, "string")                                                                   \
	X(TOML_INTEGER, "integer")                                                                 \
	X(TOML_FLOAT, "float")                                                                     \
	X(TOML_BOOL, "bool")                                                                       \
	X(TOML_DATETIME, "datetime")                                                               \
	X(TOML_DATETIME_LOCAL, "datetime-local")                                                   \
	X(TOML_DATE_LOCAL, "date-local")                                                           \
	X(TOML_TIME_LOCAL, "time-local")

enum toml_type {
#define X(e, s) e,
	TOML_TYPES(X)
#undef X
};

/* Arrays and tables may nest this deep (the root table is level 0); deeper is an error, so
 * hostile input cannot exhaust the stack of the parser or of code that walks the tree. */
#define TOML_MAX_DEPTH 128

struct toml_value;

/* One key of a table, in document order. */
struct toml_kv {
	/* decoded (escapes resolved), NUL-terminated; may contain NUL: see keylen */
	const char *key;
	size_t keylen;
	int line, col; /* where the key was written (for a dotted key: its last part) */
	struct toml_value *value;
};

struct toml_value {
	enum toml_type type;
	int line, col; /* where the value starts; for tables, the header or first key */
	union {
		struct {
			struct toml_kv *items;
			size_t len, cap;
		} table;
		struct {
			struct toml_value **items;
			size_t len, cap;
		} array;
		struct {
			const char *s; /* decoded UTF-8, NUL-terminated; may contain NUL: see len */
			size_t len;
		} str; /* strings, and the four date-time types in RFC 3339 text */
		int64_t i;
		double f;
		bool b;
	} u;
	/* Internal state the parser needs (inline vs header-defined tables, array-of-tables). */
	unsigned flags;
};

/* Parses src into a table. Returns NULL and reports the first error (with line:col) to d. */
struct toml_value *toml_parse(struct arena *a, struct diag *d, const struct source *src);
/* Returns the value of key in table t, or NULL (also when t is NULL or not a table). */
const struct toml_value *toml_get(const struct toml_value *t, const char *key);
/* Returns the key entry of key in table t (for its location), or NULL. */
const struct toml_kv *toml_get_kv(const struct toml_value *t, const char *key);
/* Returns the TOML type name ("string", "table", ...). */
const char *toml_type_name(enum toml_type t);
/* Writes the tagged JSON of toml-test (shared/toml-test/FORMAT.md) for v to sb. */
struct strbuf;
void toml_to_tagged_json(const struct toml_value *v, struct strbuf *sb);

#endif
