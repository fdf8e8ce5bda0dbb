/* toml.c: the TOML document model: key paths, tables, arrays of tables and the redefinition
 * rules (toml_lex.c reads the tokens, toml_json.c writes toml-test's tagged JSON). */
#include "standards/toml_internal.h"

#include <stdio.h>
#include <string.h>

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

/* ---- the tree ---- */

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

/* ---- keys ---- */

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
			if (!toml_lex_string(P, false, &k->s, &k->len))
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
				           toml_lex_char_show(cs, c));
			return ERR(P, "expected a key, found %s", toml_lex_char_show(cs, c));
		}
		toml_lex_skip_ws(P);
		if (peek(P) != '.')
			return true;
		adv(P);
		toml_lex_skip_ws(P);
	}
}

/* ---- values ---- */

static struct toml_value *read_value(struct parser *P, int depth);
static bool add_keyval(struct parser *P, struct toml_value *t, int depth);

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
	struct toml_value *arr = toml_value_new(P, TOML_ARRAY, P->line, P->col);
	arr->flags = TF_INLINE;
	adv(P); /* '[' */
	for (;;) {
		if (!toml_lex_skip_ws_nl(P))
			return NULL;
		if (peek(P) == ']')
			break;
		struct toml_value *v = read_value(P, depth + 1);
		if (!v)
			return NULL;
		array_push(P, arr, v);
		if (!toml_lex_skip_ws_nl(P))
			return NULL;
		if (peek(P) == ',') {
			adv(P);
			continue;
		}
		if (peek(P) == ']')
			break;
		char cs[16];
		return ERR(P, "expected ',' or ']' in array, found %s",
		           toml_lex_char_show(cs, peek(P))),
		       NULL;
	}
	adv(P); /* ']' */
	return arr;
}

static struct toml_value *read_inline_table(struct parser *P, int depth)
{
	if (too_deep(P, depth))
		return NULL;
	struct toml_value *t = toml_value_new(P, TOML_TABLE, P->line, P->col);
	adv(P); /* '{' */
	toml_lex_skip_ws(P);
	if (peek(P) != '}') {
		for (;;) {
			toml_lex_skip_ws(P);
			if (peek(P) == '\n' || peek(P) == '\r')
				return ERR(P, "an inline table must be on one line"), NULL;
			if (!add_keyval(P, t, depth))
				return NULL;
			toml_lex_skip_ws(P);
			if (peek(P) == '}')
				break;
			if (peek(P) != ',') {
				char cs[16];
				if (peek(P) == '\n' || peek(P) == '\r')
					return ERR(P, "an inline table must be on one line"), NULL;
				return ERR(P, "expected ',' or '}' in inline table, found %s",
				           toml_lex_char_show(cs, peek(P))),
				       NULL;
			}
			adv(P);
			toml_lex_skip_ws(P);
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

/* Parses any value; depth is the nesting level the value will sit at. */
static struct toml_value *read_value(struct parser *P, int depth)
{
	int c = peek(P);
	int line = P->line, col = P->col;
	if (c == '"' || c == '\'') {
		struct toml_value *v = toml_value_new(P, TOML_STRING, line, col);
		if (!toml_lex_string(P, true, &v->u.str.s, &v->u.str.len))
			return NULL;
		return v;
	}
	if (c == '[')
		return read_array(P, depth);
	if (c == '{')
		return read_inline_table(P, depth);
	if (toml_lex_match_word(P, "true") || toml_lex_match_word(P, "false")) {
		return toml_lex_bool(P);
	}
	if (is_digit(c) || c == '+' || c == '-' || toml_lex_match_word(P, "inf") ||
	    toml_lex_match_word(P, "nan"))
		return toml_lex_number(P);
	char cs[16];
	if (c < 0 || c == '\n' || c == '\r' || c == '#')
		return ERR(P, "expected a value"), NULL;
	if (is_bare(c))
		return ERR(P, "invalid value (strings must be quoted)"), NULL;
	return ERR(P, "expected a value, found %s", toml_lex_char_show(cs, c)), NULL;
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
		return ERR(P, "expected '=' after key, found %s", toml_lex_char_show(cs, peek(P)));
	}
	if (n > TOML_MAX_DEPTH || depth + (int)n > TOML_MAX_DEPTH + 1)
		return toml_lex_error(P, parts[0].line, parts[0].col,
		                      "key nests deeper than %d levels", TOML_MAX_DEPTH);
	char ks[80];
	/* Walk (or create) the tables the dotted key names before the value is parsed, so the
	 * value knows its depth. */
	for (size_t i = 0; i + 1 < n; i++) {
		struct key_part *k = &parts[i];
		struct toml_kv *kv = table_find(t, k->s, k->len);
		if (!kv) {
			struct toml_value *nt = toml_value_new(P, TOML_TABLE, k->line, k->col);
			nt->flags = TF_DOTTED;
			t = table_add(P, t, k, nt)->value;
			continue;
		}
		struct toml_value *v = kv->value;
		if (v->type != TOML_TABLE || (v->flags & TF_INLINE))
			return toml_lex_error(
			    P, k->line, k->col,
			    "cannot add keys to '%s': it is %s (defined at line %d)",
			    key_show(ks, k->s, k->len), what_is(v), kv->line);
		if (v->flags & TF_DEFINED)
			return toml_lex_error(
			    P, k->line, k->col,
			    "cannot add keys to table '%s' with a dotted key: it has its "
			    "own [header] at line %d",
			    key_show(ks, k->s, k->len), v->line);
		v->flags |= TF_DOTTED;
		t = v;
	}
	struct key_part *last = &parts[n - 1];
	struct toml_kv *dup = table_find(t, last->s, last->len);
	if (dup)
		return toml_lex_error(P, last->line, last->col,
		                      "duplicate key '%s' (first defined at line %d)",
		                      key_show(ks, last->s, last->len), dup->line);
	adv(P); /* '=' */
	toml_lex_skip_ws(P);
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
	toml_lex_skip_ws(P);
	struct key_part *parts;
	size_t n;
	if (!read_key(P, &parts, &n))
		return false;
	if (peek(P) != ']' || (aot && peek_at(P, 1) != ']')) {
		char cs[16];
		return ERR(P, "expected '%s' to close the table header, found %s", aot ? "]]" : "]",
		           toml_lex_char_show(cs, peek(P)));
	}
	advn(P, aot ? 2 : 1);
	char ks[80];
	struct toml_value *t = P->root;
	int depth = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		struct key_part *k = &parts[i];
		struct toml_kv *kv = table_find(t, k->s, k->len);
		if (!kv) {
			struct toml_value *nt = toml_value_new(P, TOML_TABLE, k->line, k->col);
			t = table_add(P, t, k, nt)->value;
		} else if (kv->value->type == TOML_TABLE && !(kv->value->flags & TF_INLINE)) {
			t = kv->value;
		} else if (kv->value->type == TOML_ARRAY && (kv->value->flags & TF_AOT)) {
			struct toml_value *arr = kv->value;
			t = arr->u.array.items[arr->u.array.len - 1];
			depth++;
		} else {
			return toml_lex_error(
			    P, k->line, k->col,
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
			arr = toml_value_new(P, TOML_ARRAY, line, col);
			arr->flags = TF_AOT;
			table_add(P, t, k, arr);
		} else if (kv->value->type == TOML_ARRAY && (kv->value->flags & TF_AOT)) {
			arr = kv->value;
		} else {
			return toml_lex_error(
			    P, k->line, k->col,
			    "cannot define array of tables '%s': it is already %s "
			    "(defined at line %d)",
			    key_show(ks, k->s, k->len), what_is(kv->value), kv->line);
		}
		P->cur = toml_value_new(P, TOML_TABLE, line, col);
		P->cur->flags = TF_DEFINED;
		array_push(P, arr, P->cur);
		return true;
	}
	if (!kv) {
		P->cur = toml_value_new(P, TOML_TABLE, line, col);
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
		return toml_lex_error(P, k->line, k->col,
		                      "table '%s' is already defined (at line %d)%s",
		                      key_show(ks, k->s, k->len), v->line,
		                      v->flags & TF_DOTTED ? " by dotted keys" : "");
	return toml_lex_error(P, k->line, k->col,
	                      "cannot define table '%s': it is already %s (at line %d)",
	                      key_show(ks, k->s, k->len), what_is(v), kv->line);
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
	P.root = toml_value_new(&P, TOML_TABLE, 1, 1);
	P.root->flags = TF_DEFINED;
	P.cur = P.root;
	bool ok = toml_lex_check_utf8(&P);
	if (ok && src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0)
		P.p += 3; /* a byte order mark is allowed and ignored */
	while (ok) {
		toml_lex_skip_ws(&P);
		int c = peek(&P);
		if (c < 0)
			break;
		if (c == '#' || c == '\n' || c == '\r')
			ok = toml_lex_expect_eol(&P, "a comment");
		else if (c == '[')
			ok = read_header(&P) && toml_lex_expect_eol(&P, "a table header");
		else
			ok = add_keyval(&P, P.cur, P.cur_depth) &&
			     toml_lex_expect_eol(&P, "a key/value pair");
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
