/* config_args.c: every config string on its way to build.ninja or a compiler is checked here,
 * at its own file:line:col, against the route it takes (standards/ninja.c knows what each route
 * cannot carry). A value that passes reaches the compiler as exactly the argument written. */
#include <string.h>

#include "matrix/config_internal.h"
#include "standards/ninja.h"
#include "toolchain/code_flags.h"

/* Whether a define (NAME=VALUE, or what follows a flag's -D) opens a block comment it does not
 * close: the compiler reads it as `#define NAME VALUE` and stops at "unterminated comment", so
 * no source compiles with it (found by test_graph_property, seed 177427556). A '/' '*' inside
 * a string or character literal opens none; a line comment ends the value. */
static bool define_opens_comment(const char *def)
{
	const char *p = strchr(def, '=');
	char quote = 0;
	for (p = p ? p + 1 : def + strlen(def); *p; p++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (p[0] == '/' && p[1] == '/') {
			return false;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			if (!end)
				return true;
			p = end + 1;
		}
	}
	return false;
}

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
		const char *s = e->u.str.s;
		const char *def = !strcmp(key, "defines") ? s : !strncmp(s, "-D", 2) ? s + 2 : NULL;
		if (!why && def && define_opens_comment(def)) {
			cfg_error(
			    r, e,
			    "%s value '%s' opens a comment ('/*') that it does not close: the "
			    "compiler would read the rest of the define as an unterminated comment",
			    key, config_shown(r->a, s));
			ok = false;
			continue;
		}
		if (!why)
			continue;
		cfg_error(r, e, "%s value '%s' holds %s: it cannot reach the compiler as written",
		          key, config_shown(r->a, s), why);
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

/* The strings of v (an array; anything else was reported by cfg_strv), and their values. */
static size_t string_items(struct arena *a, const struct toml_value *v, const char ***args,
                           const struct toml_value ***at)
{
	size_t n = v && v->type == TOML_ARRAY ? v->u.array.len : 0, k = 0;
	*args = arena_calloc(a, n + 1, sizeof(**args));
	*at = arena_calloc(a, n + 1, sizeof(**at));
	for (size_t i = 0; i < n; i++)
		if (v->u.array.items[i]->type == TOML_STRING) {
			(*at)[k] = v->u.array.items[i];
			(*args)[k++] = v->u.array.items[i]->u.str.s;
		}
	return k;
}

/* Each argument of t[key] that makes a compiler run a program or load code and is not in
 * trusted: a located error. host: each value reaches nvcc as -Xcompiler=VALUE. */
static bool check_code_flags_key(struct cfg_reader *r, const struct toml_value *t, const char *key,
                                 enum code_flags_for who, bool host, const struct strv *trusted)
{
	const char **args;
	const struct toml_value **at;
	size_t n = string_items(r->a, t ? toml_get(t, key) : NULL, &args, &at);
	bool ok = true;
	/* (host: each value alone, behind the -Xcompiler= that carries it) */
	for (size_t i = 0; i < (host ? n : 1); i++) {
		const char *one[] = {"-Xcompiler", args[i]};
		const char *const *list = host ? one : args;
		struct code_flag_hit h;
		for (size_t from = 0;
		     code_flags_scan(list, host ? 2 : n, host ? CODE_FLAGS_NVCC : who, from, &h);
		     from = h.next) {
			size_t idx = host ? i : h.at;
			if (strv_contains(trusted, args[idx]))
				continue;
			cfg_error(r, at[idx],
			          "%s value '%s' %s: a flag that runs a program or loads code is "
			          "used only when [tool.cuwheel] trusted-flags lists it",
			          key, config_shown(r->a, args[idx]), h.why);
			ok = false;
		}
	}
	return ok;
}

bool config_check_code_flags(struct cfg_reader *r, const struct toml_value *tool)
{
	struct strv trusted = {0};
	bool ok = cfg_strv(r, tool, "trusted-flags", "[tool.cuwheel]", false, &trusted);
	const struct toml_value *k = toml_get(tool, "kernels");
	if (k && k->type == TOML_TABLE) {
		ok &= check_code_flags_key(r, k, "nvcc-flags", CODE_FLAGS_NVCC, false, &trusted);
		ok &= check_code_flags_key(r, k, "host-flags", CODE_FLAGS_CC, true, &trusted);
		ok &= check_code_flags_key(r, k, "cxx-flags", CODE_FLAGS_CC, false, &trusted);
	}
	const struct toml_value *e = toml_get(tool, "extension");
	size_t n = e && e->type == TOML_ARRAY ? e->u.array.len : e && e->type == TOML_TABLE;
	for (size_t i = 0; i < n; i++) {
		const struct toml_value *x = e->type == TOML_ARRAY ? e->u.array.items[i] : e;
		if (x->type != TOML_TABLE)
			continue;
		ok &= check_code_flags_key(r, x, "cflags", CODE_FLAGS_CC, false, &trusted);
		ok &= check_code_flags_key(r, x, "nvcc-flags", CODE_FLAGS_NVCC, false, &trusted);
		ok &= check_code_flags_key(r, x, "ldflags", CODE_FLAGS_CC, false, &trusted);
	}
	return ok;
}

/* Why name may not be set by setup-env, or NULL: the capture sets these itself (its own home,
 * temp dir, locale, Python and pip settings, the dead proxies, the user's PATH, CUDA and
 * compilers), or they make the loader, Python or a shell run or load code of their own. */
static const char *setup_env_refusal(const char *name)
{
	static const char *const own[] = {"PATH",      "HOME",      "TMPDIR",     "LC_ALL",
	                                  "CUDA_HOME", "CUDA_PATH", "CC",         "CXX",
	                                  "BASH_ENV",  "ENV",       "http_proxy", "https_proxy",
	                                  "ALL_PROXY", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"};
	static const char *const prefixes[] = {"LD_", "PYTHON", "PIP_", "CUWHEEL_"};
	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
		if (!strcmp(name, own[i]))
			return "a variable the capture sets itself or that runs code";
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return "a variable the capture sets itself or that loads code";
	return NULL;
}

static bool env_name_ok(const char *s, size_t len)
{
	if (!len || strlen(s) != len || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
			return false;
	return true;
}

bool config_setup_env(struct arena *a, struct diag *d, const struct source *src,
                      const struct toml_value *tool, struct strv *out)
{
	struct cfg_reader rd = {.a = a, .d = d, .src = src, .ok = true}, *r = &rd;
	const struct toml_value *t =
	    tool ? cfg_table(r, tool, "setup-env", "[tool.cuwheel]") : NULL;
	for (size_t i = 0; t && i < t->u.table.len; i++) {
		const struct toml_kv *kv = &t->u.table.items[i];
		const char *name = config_shown(a, kv->key);
		const struct toml_value *v = kv->value;
		if (!env_name_ok(kv->key, kv->keylen)) {
			cfg_error_key(r, kv,
			              "setup-env key '%s' is not an environment variable name "
			              "(letters, digits and '_', not starting with a digit)",
			              name);
			continue;
		}
		const char *why = setup_env_refusal(kv->key);
		if (why) {
			cfg_error_key(r, kv, "setup-env may not set %s: %s", name, why);
			continue;
		}
		if (v->type != TOML_STRING) {
			cfg_error(r, v,
			          "setup-env.%s must be a string (the variable's value; setup-env "
			          "never runs a command), not %s",
			          name, cfg_a_type(a, v->type));
			continue;
		}
		bool ctl = strlen(v->u.str.s) != v->u.str.len;
		for (const unsigned char *p = (const unsigned char *)v->u.str.s; *p && !ctl; p++)
			ctl = *p < 0x20 || *p == 0x7f;
		if (ctl) {
			cfg_error(r, v, "setup-env.%s holds a control character: '%s'", name,
			          config_shown(a, v->u.str.s));
			continue;
		}
		strv_push(a, out, arena_printf(a, "%s=%s", kv->key, v->u.str.s));
	}
	return r->ok;
}
