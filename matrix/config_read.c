/* config_read.c: typed, located accessors used by the config loader. */
#include "matrix/config_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"

void cfg_error(struct cfg_reader *r, const struct toml_value *v, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	diag_at(r->d, DIAG_ERROR, r->src, v ? v->line : 0, v ? v->col : 0, "%s", buf);
	r->ok = false;
}

void cfg_error_key(struct cfg_reader *r, const struct toml_kv *kv, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	diag_at(r->d, DIAG_ERROR, r->src, kv->line, kv->col, "%s", buf);
	r->ok = false;
}

bool cfg_check_keys(struct cfg_reader *r, const struct toml_value *t, const char *where,
                    const char *const *known, size_t n_known)
{
	bool ok = true;
	if (!t || t->type != TOML_TABLE)
		return true;
	for (size_t i = 0; i < t->u.table.len; i++) {
		const struct toml_kv *kv = &t->u.table.items[i];
		bool found = false;
		for (size_t k = 0; k < n_known && !found; k++)
			found = strcmp(kv->key, known[k]) == 0;
		if (found)
			continue;
		cfg_error_key(r, kv, "unknown key '%s' in %s", kv->key, where);
		const char *close = diag_did_you_mean(kv->key, known, n_known);
		if (close)
			diag_msg(r->d, DIAG_HINT, "did you mean '%s'?", close);
		else
			diag_msg(r->d, DIAG_HINT, "%s accepts: %s", where,
			         arena_printf(r->a, "%s%s", known[0], n_known > 1 ? ", ..." : ""));
		ok = false;
	}
	return ok;
}

const char *cfg_a_type(struct arena *a, enum toml_type t)
{
	const char *n = toml_type_name(t);
	return arena_printf(a, "%s %s", strchr("aeiou", n[0]) ? "an" : "a", n);
}

static bool cfg_type(struct cfg_reader *r, const struct toml_value *v, enum toml_type want,
                     const char *key, const char *where)
{
	if (v->type == want)
		return true;
	cfg_error(r, v, "%s.%s must be %s, not %s", where, key, cfg_a_type(r->a, want),
	          cfg_a_type(r->a, v->type));
	return false;
}

const struct toml_value *cfg_table(struct cfg_reader *r, const struct toml_value *t,
                                   const char *key, const char *where)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return NULL;
	return cfg_type(r, v, TOML_TABLE, key, where) ? v : NULL;
}

bool cfg_string(struct cfg_reader *r, const struct toml_value *t, const char *key,
                const char *where, const char **out)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (!cfg_type(r, v, TOML_STRING, key, where))
		return false;
	if (strlen(v->u.str.s) != v->u.str.len) {
		cfg_error(r, v, "%s.%s must not contain NUL characters", where, key);
		return false;
	}
	*out = v->u.str.s;
	return true;
}

bool cfg_strv(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
              bool allow_single, struct strv *out)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (allow_single && v->type == TOML_STRING) {
		out->n = 0;
		strv_push(r->a, out, v->u.str.s);
		return true;
	}
	if (v->type != TOML_ARRAY) {
		cfg_error(r, v, "%s.%s must be an array of strings%s, not %s", where, key,
		          allow_single ? " (or one string)" : "", cfg_a_type(r->a, v->type));
		return false;
	}
	out->n = 0;
	bool ok = true;
	for (size_t i = 0; i < v->u.array.len; i++) {
		const struct toml_value *e = v->u.array.items[i];
		if (e->type != TOML_STRING) {
			cfg_error(r, e, "%s.%s[%zu] must be a string, not %s", where, key, i,
			          cfg_a_type(r->a, e->type));
			ok = false;
			continue;
		}
		strv_push(r->a, out, e->u.str.s);
	}
	return ok;
}

bool cfg_bool(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
              bool *out)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (!cfg_type(r, v, TOML_BOOL, key, where))
		return false;
	*out = v->u.b;
	return true;
}

bool cfg_int(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
             long lo, long hi, int *out)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (!cfg_type(r, v, TOML_INTEGER, key, where))
		return false;
	if (v->u.i < lo || v->u.i > hi) {
		cfg_error(r, v, "%s.%s must be between %ld and %ld, not %lld", where, key, lo, hi,
		          (long long)v->u.i);
		return false;
	}
	*out = (int)v->u.i;
	return true;
}

bool cfg_enum(struct cfg_reader *r, const struct toml_value *t, const char *key, const char *where,
              const char *const *names, size_t n, int *out)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (v->type == TOML_BOOL && n == 3 && strcmp(names[0], "auto") == 0) {
		*out = v->u.b ? 1 : 2; /* true/false for on/off tristates */
		return true;
	}
	if (!cfg_type(r, v, TOML_STRING, key, where))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v->u.str.s, names[i]) == 0) {
			*out = (int)i;
			return true;
		}
	}
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s'%s'", i ? ", " : "", names[i]);
	cfg_error(r, v, "%s.%s must be one of %s, not '%s'", where, key, sb_str(&sb), v->u.str.s);
	sb_release(&sb);
	const char *close = diag_did_you_mean(v->u.str.s, names, n);
	if (close)
		diag_msg(r->d, DIAG_HINT, "did you mean '%s'?", close);
	return false;
}

bool cfg_str_table(struct cfg_reader *r, const struct toml_value *t, const char *key,
                   const char *where, struct str_pairs *out)
{
	const struct toml_value *v = cfg_table(r, t, key, where);
	if (!v)
		return true;
	out->v = arena_calloc(r->a, v->u.table.len, sizeof(*out->v));
	out->n = 0;
	bool ok = true;
	for (size_t i = 0; i < v->u.table.len; i++) {
		const struct toml_kv *kv = &v->u.table.items[i];
		if (kv->value->type != TOML_STRING) {
			cfg_error(r, kv->value, "%s.%s.%s must be a string, not %s", where, key,
			          kv->key, cfg_a_type(r->a, kv->value->type));
			ok = false;
			continue;
		}
		out->v[out->n].key = kv->key;
		out->v[out->n].value = kv->value->u.str.s;
		out->n++;
	}
	return ok;
}

bool cfg_str_multi_table(struct cfg_reader *r, const struct toml_value *t, const char *key,
                         const char *where, struct str_pairs *out)
{
	const struct toml_value *v = cfg_table(r, t, key, where);
	if (!v)
		return true;
	size_t cap = 0;
	for (size_t i = 0; i < v->u.table.len; i++) {
		const struct toml_value *e = v->u.table.items[i].value;
		cap += e->type == TOML_ARRAY ? e->u.array.len : 1;
	}
	out->v = arena_calloc(r->a, cap ? cap : 1, sizeof(*out->v));
	out->n = 0;
	bool ok = true;
	for (size_t i = 0; i < v->u.table.len; i++) {
		const struct toml_kv *kv = &v->u.table.items[i];
		const struct toml_value *e = kv->value;
		if (e->type == TOML_ARRAY && e->u.array.len == 0) {
			cfg_error(r, e, "%s.%s.%s is an empty array: name one path or more", where,
			          key, kv->key);
			ok = false;
			continue;
		}
		size_t n = e->type == TOML_ARRAY ? e->u.array.len : 1;
		for (size_t k = 0; k < n; k++) {
			const struct toml_value *s =
			    e->type == TOML_ARRAY ? e->u.array.items[k] : e;
			if (s->type != TOML_STRING) {
				cfg_error(
				    r, s,
				    "%s.%s.%s must be a string or an array of strings, not %s",
				    where, key, kv->key, cfg_a_type(r->a, s->type));
				ok = false;
				continue;
			}
			out->v[out->n].key = kv->key;
			out->v[out->n].value = s->u.str.s;
			out->n++;
		}
	}
	return ok;
}
