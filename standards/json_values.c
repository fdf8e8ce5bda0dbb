/* json_values.c: see json_values.h. */
#include "standards/json_values.h"

#include <stdlib.h>
#include <string.h>

#include "base/escape.h"

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

const char *json_str_read(struct arena *a, const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? arena_strdup(a, s) : NULL;
}

void json_strv_read(struct arena *a, const json_t *arr, struct strv *out)
{
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (json_is_string(v))
			strv_push(a, out, arena_strdup(a, json_string_value(v)));
	}
}

char *json_dump_text(struct arena *a, const json_t *j, size_t flags)
{
	char *s = json_dumps(j, flags);
	if (!s)
		return NULL;
	char *out = esc_mem(a, ESC_JSON, s, strlen(s));
	free(s);
	return out;
}
