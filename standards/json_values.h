/* json_values.h: the JSON values every report and context file writes (jansson): a string
 * that may be absent, and a list of strings. */
#ifndef CUWHEEL_STANDARDS_JSON_VALUES_H
#define CUWHEEL_STANDARDS_JSON_VALUES_H

#include <jansson.h>

#include "base/arena.h"

/* A new reference: the string s, or JSON null when s is NULL. */
json_t *json_str_or_null(const char *s);
/* A new reference: an array of v's strings, in order. */
json_t *json_strv(const struct strv *v);

#endif
