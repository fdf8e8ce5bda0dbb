/* config_read.h: typed, located access to TOML tables for the config loader. Each accessor
 * reports a wrong type or value at the value's file:line:col and returns false. */
#ifndef CUWHEEL_MATRIX_CONFIG_READ_H
#define CUWHEEL_MATRIX_CONFIG_READ_H

#include <stdbool.h>

#include "matrix/config.h"

struct cfg_reader {
	struct arena *a;
	struct diag *d;
	const struct source *src;
	bool ok; /* cleared by every reported error; loading goes on to find more */
};

/* Reports an error at a value's location (a NULL value: the file itself). */
void cfg_error(struct cfg_reader *r, const struct toml_value *v, const char *fmt, ...)
    CW_PRINTF(3, 4);
/* Reports an error at a key's location. */
void cfg_error_key(struct cfg_reader *r, const struct toml_kv *kv, const char *fmt, ...)
    CW_PRINTF(3, 4);
/* Returns the type name with its article: "a string", "an integer". */
const char *cfg_a_type(struct arena *a, enum toml_type t);
/* Reports every key of table t not in known[] (with a did-you-mean); false if any. */
bool cfg_check_keys(struct cfg_reader *r, const struct toml_value *t, const char *where,
                    const char *const *known, size_t n_known);
/* Requires v (may be NULL) to be a table; returns it or NULL after an error. */
const struct toml_value *cfg_table(struct cfg_reader *r, const struct toml_value *t,
                                   const char *key, const char *where);
/* Reads an optional string; *out untouched when absent. */
bool cfg_string(struct cfg_reader *r, const struct toml_value *t, const char *key,
                const char *where, const char **out);
/* Reads an optional array of strings (or, with allow_single, one string). */
bool cfg_strv(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
              bool allow_single, struct strv *out);
/* Reads an optional boolean. */
bool cfg_bool(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
              bool *out);
/* Reads an optional integer within [lo, hi]. */
bool cfg_int(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
             long lo, long hi, int *out);
/* Reads an optional string that must be one of names[]; stores its index. */
bool cfg_enum(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
              const char *const *names, size_t n, int *out);
/* Reads an optional table of string values into pairs (document order). */
bool cfg_str_table(struct cfg_reader *r, const struct toml_value *t, const char *key,
                   const char *where, struct str_pairs *out);
/* cfg_str_table(), where a value may also be a non-empty array of strings: one pair per string,
 * all with the table's key (document order). */
bool cfg_str_multi_table(struct cfg_reader *r, const struct toml_value *t, const char *key,
                         const char *where, struct str_pairs *out);

#endif
