/* json_values.h: the JSON values every report and context file writes (jansson): a string
 * that may be absent, and a list of strings; the same read back into an arena; and the one
 * function that renders JSON text. */
#ifndef CUWHEEL_STANDARDS_JSON_VALUES_H
#define CUWHEEL_STANDARDS_JSON_VALUES_H

#include <jansson.h>

#include "base/arena.h"

/* A new reference: the string s, or JSON null when s is NULL. */
json_t *json_str_or_null(const char *s);
/* A new reference: an array of v's strings, in order. */
json_t *json_strv(const struct strv *v);
/* An arena copy of o's member key when it is a string; NULL otherwise (o may be NULL). */
const char *json_str_read(struct arena *a, const json_t *o, const char *key);
/* Appends arena copies of the strings of the array arr to out, in order; other values, and an
 * arr that is no array (or NULL), add nothing. */
void json_strv_read(struct arena *a, const json_t *arr, struct strv *out);
/* j rendered by json_dumps with flags, in a, with DEL and the code points a terminal acts on
 * (C1 controls such as U+009B CSI, bidi controls) written as \u escapes (base/escape.h,
 * ESC_JSON), so a file or answer a user `cat`s is inert; no newline is added. Every JSON text
 * cuwheel writes comes from here. Returns NULL when jansson cannot render j. */
char *json_dump_text(struct arena *a, const json_t *j, size_t flags);

#endif
