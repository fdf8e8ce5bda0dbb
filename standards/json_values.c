/* json_values.c: see json_values.h. */
#include "standards/json_values.h"

json_t *json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *json_strv(const struct strv *v)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(arr, json_string(v->v[i]));
	return arr;
}
