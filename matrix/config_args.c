/* config_args.c: every config string on its way to build.ninja or a compiler is checked here,
 * at its own file:line:col, against the route it takes (standards/ninja.c knows what each route
 * cannot carry). A value that passes reaches the compiler as exactly the argument written. */
#include <string.h>

#include "matrix/config_internal.h"
#include "standards/ninja.h"

bool config_check_args(struct cfg_reader *r, const struct toml_value *t, const char *key,
                       enum arg_route route)
{
	const struct toml_value *v = t ? toml_get(t, key) : NULL;
	if (!v)
		return true;
	bool ok = true;
	size_t n = v->type == TOML_ARRAY ? v->u.array.len : 1;
	for (size_t i = 0; i < n; i++) {
		const struct toml_value *e = v->type == TOML_ARRAY ? v->u.array.items[i] : v;
		if (e->type != TOML_STRING)
			continue; /* cfg_strv reported it */
		const char *why = strlen(e->u.str.s) != e->u.str.len
		                      ? "a NUL byte"
		                      : ninja_arg_refusal(e->u.str.s, route);
		if (!why)
			continue;
		cfg_error(r, e, "%s value '%s' holds %s: it cannot reach the compiler as written",
		          key, config_shown(r->a, e->u.str.s), why);
		ok = false;
	}
	return ok;
}

bool config_check_files(struct cfg_reader *r, const struct toml_value *at, const struct strv *files,
                        size_t first)
{
	bool ok = true;
	for (size_t i = first; i < files->n; i++) {
		const char *f = files->v[i];
		const char *why = ninja_arg_refusal(f, ARG_CC);
		if (!why && strchr(f, '"'))
			why = "'\"' (a source is compiled through #include \"...\" when its name "
			      "cannot reach the compiler as written)";
		/* nvcc writes a backslash of a path as '/' in its dependency file: a;\$b.cu comes
		 * back as "a;/$b.cu", which ninja splits into pieces, one of them "/" (an empty
		 * path once normalised), and ninja stops with "Error writing to deps log" (found by
		 * test_graph_property, seed 1043599685). */
		size_t len = strlen(f);
		if (!why && strchr(f, '\\') && len >= 3 && !strcmp(f + len - 3, ".cu"))
			why =
			    "'\\' (nvcc's dependency file turns it into '/', and Windows reads it "
			    "as a directory separator)";
		if (!why)
			continue;
		cfg_error(r, at, "'%s' names a file whose name holds %s", config_shown(r->a, f),
		          why);
		ok = false;
	}
	return ok;
}
