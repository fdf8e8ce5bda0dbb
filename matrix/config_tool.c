/* config_tool.c: [tool.cuwheel] into the build model, with defaults for what is absent. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "base/os-file.h"
#include "matrix/config_internal.h"

static const char *const tool_keys[] = {
    "kernels", "extension", "packages",      "matrix",       "test",      "toolkits",
    "pythons", "cache",     "audit",         "build-dir",    "dist-dir",  "compression",
    "ci",      "openmp",    "trusted-flags", "python-files", "setup-env",
};
static const char *const kernels_keys[] = {
    "sources", "include-dirs", "defines", "nvcc-flags", "host-flags",
    "archs",   "cudart",       "rdc",     "uses-torch", "cxx-flags",
};
static const char *const extension_keys[] = {
    "module",    "kind",        "sources",    "include-dirs", "defines",     "cflags",
    "ldflags",   "libraries",   "abi-suffix", "pch",          "pch-exclude", "abi3",
    "torch-abi", "python-free", "nvcc-flags", "loaded-by",
};
static const char *const matrix_keys[] = {
    "python",  "cuda",  "torch", "platform",      "include",
    "exclude", "build", "skip",  "local-version", "abi3-per-python",
};
static const char *const entry_keys[] = {"python", "cuda", "torch", "platform"};
static const char *const test_keys[] = {"requires", "command",      "find-links",
                                        "torch",    "torch-compat", "torch-requires"};
static const char *const test_torch_names[] = {"build", "index"};
static const char *const torch_requires_names[] = {"build", "tested"};
static const char *const cache_keys[] = {"ccache", "remote", "dir"};
static const char *const audit_keys[] = {"min-manylinux", "strict"};
static const char *const ci_keys[] = {"cuwheel", "container", "publish", "environment", "aarch64"};
static const char *const ci_aarch64_names[] = {"native", "cross"};
static const char *const ci_cuwheel_keys[] = {"git", "rev", "url", "sha256"};
static const char *const ci_publish_names[] = {"release", "pages", "pypi-sdist"};
#define N(a) (sizeof(a) / sizeof(*(a)))

static const char *const cudart_names[] = {
#define X(e, s) s,
    CUDART_KINDS(X)
#undef X
};
static const char *const ext_names[] = {
#define X(e, s) s,
    EXT_KINDS(X)
#undef X
};
/* A CI string goes into the workflow as data: never a GitHub expression, a line break or (for
 * pip) an option. */
static bool ci_string(struct cfg_reader *r, const struct toml_value *t, const char *key,
                      const char *allowed, const char **out)
{
	const char *w = "[tool.cuwheel.ci]";
	if (!cfg_string(r, t, key, w, out))
		return false;
	const char *s = *out;
	if (!s || (!*s && allowed))
		return true;
	const struct toml_value *v = toml_get(t, key);
	if (!*s) {
		cfg_error(r, v, "%s.%s must not be empty", w, key);
		return false;
	}
	if (s[0] == '-') {
		cfg_error(r, v, "%s.%s must not start with '-' (it would be an option)", w, key);
		return false;
	}
	for (const char *c = s; *c; c++) {
		bool ok = allowed ? (isalnum((unsigned char)*c) || strchr(allowed, *c))
		                  : ((unsigned char)*c >= 0x20 && *c != 0x7f);
		if (!ok || (c[0] == '$' && c[1] == '{')) {
			cfg_error(r, v, "%s.%s: character %zu ('%c') is not allowed here", w, key,
			          (size_t)(c - s) + 1, isprint((unsigned char)*c) ? *c : '?');
			return false;
		}
	}
	return true;
}

/* True when s is n lowercase hex digits. */
static bool is_hex(const char *s, size_t n)
{
	size_t i = 0;
	while (s[i] && strchr("0123456789abcdef", s[i]))
		i++;
	return i == n && !s[i];
}

/* cuwheel = {git = URL, rev = SHA} | {url = URL, sha256 = HEX}: a pinned source build or a
 * wheel by digest. A bare requirement ("cuwheel==0.1.0") names no release that exists. */
static bool read_ci_cuwheel(struct cfg_reader *r, const struct toml_value *t, struct ci_cfg *ci)
{
	const char *w = "[tool.cuwheel.ci] cuwheel";
	const struct toml_value *v = toml_get(t, "cuwheel");
	if (!v)
		return true;
	if (v->type != TOML_TABLE) {
		cfg_error(r, v,
		          "%s must be {git = URL, rev = COMMIT} (cuwheel built from its repository "
		          "at a commit) or {url = WHEEL-URL, sha256 = DIGEST}: no cuwheel release "
		          "exists to name by version",
		          w);
		return false;
	}
	bool ok = cfg_check_keys(r, v, w, ci_cuwheel_keys, N(ci_cuwheel_keys));
	struct ci_cuwheel *c = &ci->cuwheel;
	ok &= ci_string(r, v, "git", NULL, &c->git);
	ok &= ci_string(r, v, "rev", NULL, &c->rev);
	ok &= ci_string(r, v, "url", NULL, &c->url);
	ok &= ci_string(r, v, "sha256", NULL, &c->sha256);
	if (!ok)
		return false;
	if (!!c->git + !!c->url != 1 || !!c->git != !!c->rev || !!c->url != !!c->sha256) {
		cfg_error(r, v, "%s: give git and rev, or url and sha256", w);
		return false;
	}
	if (c->rev && !is_hex(c->rev, 40)) {
		cfg_error(r, toml_get(v, "rev"),
		          "%s: rev must be a full commit id (40 lowercase hex digits): a branch or "
		          "tag can move",
		          w);
		return false;
	}
	if (c->sha256 && !is_hex(c->sha256, 64)) {
		cfg_error(r, toml_get(v, "sha256"), "%s: sha256 must be 64 lowercase hex digits",
		          w);
		return false;
	}
	const char *url = c->git ? c->git : c->url;
	if (strncmp(url, "https://", 8) && strncmp(url, "file://", 7)) {
		cfg_error(r, toml_get(v, c->git ? "git" : "url"),
		          "%s: %s must be an https:// (or file://) URL", w, c->git ? "git" : "url");
		return false;
	}
	return true;
}

static bool read_ci(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool)
{
	const struct toml_value *t = cfg_table(r, tool, "ci", "[tool.cuwheel]");
	if (!t)
		return true;
	const char *w = "[tool.cuwheel.ci]";
	bool ok = cfg_check_keys(r, t, w, ci_keys, N(ci_keys));
	ok &= read_ci_cuwheel(r, t, &cfg->ci);
	ok &= ci_string(r, t, "container", "._/:@-", &cfg->ci.container);
	ok &= ci_string(r, t, "environment", "._-", &cfg->ci.environment);
	int aarch64 = 0;
	ok &= cfg_enum(r, t, "aarch64", w, ci_aarch64_names, N(ci_aarch64_names), &aarch64);
	cfg->ci.aarch64_cross = aarch64 == 1;
	struct strv pub = {0};
	ok &= cfg_strv(r, t, "publish", w, true, &pub);
	const struct toml_value *pv = toml_get(t, "publish");
	for (size_t i = 0; i < pub.n; i++) {
		size_t k = 0;
		while (k < N(ci_publish_names) && strcmp(ci_publish_names[k], pub.v[i]))
			k++;
		if (k == N(ci_publish_names)) {
			cfg_error(r, pv->type == TOML_ARRAY ? pv->u.array.items[i] : pv,
			          "%s.publish: '%s' is not one of release, pages, pypi-sdist", w,
			          pub.v[i]);
			ok = false;
		}
	}
	/* In the table's order, whatever order they were written in. */
	for (size_t k = 0; k < N(ci_publish_names); k++)
		if (strv_contains(&pub, ci_publish_names[k]))
			strv_push(r->a, &cfg->ci.publish, ci_publish_names[k]);
	return ok;
}

static const char *const tri_names[] = {
#define X(e, s) s,
    TRISTATES(X)
#undef X
};

const char *tristate_name(enum tristate t)
{
	return tri_names[t];
}

static bool read_archs(struct cfg_reader *r, struct kernels_cfg *k, const struct toml_value *t)
{
	const struct toml_value *v = toml_get(t, "archs");
	if (!v)
		return true;
	const char *text = NULL;
	if (v->type == TOML_STRING) {
		text = v->u.str.s;
	} else if (v->type == TOML_ARRAY) {
		struct strv parts = {0};
		if (!cfg_strv(r, t, "archs", "[tool.cuwheel.kernels]", false, &parts))
			return false;
		struct strbuf sb = {0};
		for (size_t i = 0; i < parts.n; i++) {
			/* Parse each entry alone first so an error points at its element. */
			const char *err = NULL;
			struct arch *one;
			size_t n_one;
			if (!cuda_arch_parse_list(r->a, parts.v[i], ARCH_SPELL_TORCH, &one, &n_one,
			                          &err)) {
				cfg_error(r, v->u.array.items[i],
				          "[tool.cuwheel.kernels].archs[%zu]: %s", i, err);
				sb_release(&sb);
				return false;
			}
			sb_printf(&sb, "%s%s", i ? ";" : "", parts.v[i]);
		}
		text = sb_to_arena(&sb, r->a);
	} else {
		cfg_error(r, v,
		          "[tool.cuwheel.kernels].archs must be a string like "
		          "\"7.5;8.6;12.0+PTX\" or an array, not %s",
		          cfg_a_type(r->a, v->type));
		return false;
	}
	const char *err = NULL;
	if (!cuda_arch_parse_list(r->a, text, ARCH_SPELL_TORCH, &k->archs, &k->n_archs, &err)) {
		cfg_error(r, v, "[tool.cuwheel.kernels].archs: %s", err);
		return false;
	}
	k->archs_text = text;
	return true;
}

static bool read_dirs(struct cfg_reader *r, struct config *cfg, const struct toml_value *t,
                      const char *key, const char *where, struct strv *out)
{
	bool ok = cfg_strv(r, t, key, where, false, out);
	for (size_t i = 0; ok && i < out->n; i++) {
		const struct toml_value *at = toml_get(t, key)->u.array.items[i];
		size_t len = strlen(out->v[i]);
		/* nvcc trims the values of its options: "-Iinc/s " reaches the host compiler as
		 * "-Iinc/s", another directory (found by test_graph_property). */
		if (len && (isspace((unsigned char)out->v[i][0]) ||
		            isspace((unsigned char)out->v[i][len - 1]))) {
			cfg_error(
			    r, at,
			    "include directory '%s' begins or ends with whitespace, which nvcc "
			    "strips from its options (the compiler would look elsewhere)",
			    config_shown(r->a, out->v[i]));
			diag_msg(r->d, DIAG_HINT,
			         "rename the directory without the leading or trailing "
			         "space");
			ok = false;
			continue;
		}
		if (out->v[i][0] == '/') {
			if (!os_is_dir(out->v[i])) {
				cfg_error(r, at, "include directory '%s' does not exist",
				          config_shown(r->a, out->v[i]));
				ok = false;
			}
			continue;
		}
		if (!config_path_inside(out->v[i])) {
			cfg_error(r, at, "'%s' reaches outside the project directory",
			          config_shown(r->a, out->v[i]));
			ok = false;
		} else if (!os_is_dir(os_join(r->a, cfg->project_dir, out->v[i]))) {
			cfg_error(r, at, "'%s' is not a directory in %s",
			          config_shown(r->a, out->v[i]), cfg->project_dir);
			ok = false;
		} else {
			/* The rule globs follow: resolved through its symlinks, still inside. */
			const char *root = os_realpath(r->a, cfg->project_dir);
			const char *why = config_confine(r->a, root ? root : cfg->project_dir,
			                                 cfg->project_dir, out->v[i]);
			if (why) {
				cfg_error(r, at, "%s", why);
				ok = false;
			}
		}
	}
	return ok;
}

static bool read_sources(struct cfg_reader *r, struct config *cfg, const struct toml_value *t,
                         const char *where, struct strv *globs, struct strv *files)
{
	bool ok = cfg_strv(r, t, "sources", where, false, globs);
	for (size_t i = 0; ok && i < globs->n; i++) {
		const struct toml_value *at = toml_get(t, "sources")->u.array.items[i];
		size_t first = files->n;
		ok &= config_glob(r, cfg, at, globs->v[i], files) &&
		      config_check_files(r, at, files, first);
	}
	return ok;
}

static bool read_kernels(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool)
{
	struct kernels_cfg *k = &cfg->kernels;
	const char *where = "[tool.cuwheel.kernels]";
	const char *defaults = "7.5;8.0;8.6;8.9;9.0;10.0;12.0+PTX";
	const char *err;
	cuda_arch_parse_list(r->a, defaults, ARCH_SPELL_TORCH, &k->archs, &k->n_archs, &err);
	k->archs_text = defaults;
	const struct toml_value *t = cfg_table(r, tool, "kernels", "[tool.cuwheel]");
	if (!t)
		return true;
	k->where = t;
	bool ok = cfg_check_keys(r, t, where, kernels_keys, N(kernels_keys));
	ok &= read_sources(r, cfg, t, where, &k->sources, &k->files);
	ok &= read_dirs(r, cfg, t, "include-dirs", where, &k->include_dirs);
	ok &= cfg_strv(r, t, "defines", where, false, &k->defines);
	ok &= cfg_strv(r, t, "nvcc-flags", where, false, &k->nvcc_flags);
	ok &= cfg_strv(r, t, "host-flags", where, false, &k->host_flags);
	ok &= config_check_args(r, t, "include-dirs", ARG_NVCC_INCLUDE);
	ok &= config_check_args(r, t, "defines", ARG_NVCC_DEFINE);
	ok &= config_check_args(r, t, "nvcc-flags", ARG_NVCC_FLAG);
	ok &= config_check_args(r, t, "host-flags", ARG_NVCC_HOST);
	ok &= cfg_strv(r, t, "cxx-flags", where, false, &k->cxx_flags);
	ok &= config_check_args(r, t, "cxx-flags", ARG_CC);
	ok &= read_archs(r, k, t);
	int e = CUDART_STATIC;
	ok &= cfg_enum(r, t, "cudart", where, cudart_names, N(cudart_names), &e);
	k->cudart = (enum cudart_kind)e;
	ok &= cfg_bool(r, t, "rdc", where, &k->rdc);
	e = TRI_AUTO;
	ok &= cfg_enum(r, t, "uses-torch", where, tri_names, N(tri_names), &e);
	k->uses_torch = (enum tristate)e;
	for (size_t i = 0; i < k->files.n; i++) {
		const char *f = k->files.v[i];
		const char *dot = strrchr(f, '.');
		if (!dot || (strcmp(dot, ".cu") && strcmp(dot, ".c") && strcmp(dot, ".cpp") &&
		             strcmp(dot, ".cc") && strcmp(dot, ".cxx"))) {
			cfg_error(r, toml_get(t, "sources"),
			          "kernel source '%s' is not a .cu, .c or .cpp file", f);
			ok = false;
		}
	}
	return ok;
}

bool config_module_name_valid(const char *m)
{
	if (!*m)
		return false;
	bool start = true;
	for (const char *p = m; *p; p++) {
		if (*p == '.') {
			if (start)
				return false;
			start = true;
			continue;
		}
		if (!(isalnum((unsigned char)*p) || *p == '_') ||
		    (start && isdigit((unsigned char)*p)))
			return false;
		start = false;
	}
	return !start;
}

void config_libraries(struct arena *a, const struct config *cfg, struct strv *out)
{
	for (size_t e = 0; e < cfg->n_extensions; e++)
		if (cfg->extensions[e].loaded_by_path &&
		    !strv_contains(out, cfg->extensions[e].module))
			strv_push(a, out, cfg->extensions[e].module);
}

static void push_once(struct arena *a, struct strv *out, const char *name)
{
	if (!strv_contains(out, name))
		strv_push(a, out, name);
}

void config_declared(struct arena *a, const struct config *cfg, struct strv *out)
{
	for (size_t p = 0; p < cfg->packages.n; p++) {
		const char *base = strrchr(cfg->packages.v[p], '/');
		push_once(a, out, base ? base + 1 : cfg->packages.v[p]);
	}
	for (size_t f = 0; f < cfg->python_files.n; f++) {
		const char *k = cfg->python_files.v[f].key, *slash = strchr(k, '/');
		size_t n = strlen(k);
		push_once(a, out,
		          slash ? arena_strndup(a, k, (size_t)(slash - k))
		          : (n > 3 && !strcmp(k + n - 3, ".py"))
		              ? arena_strndup(a, k, strcspn(k, "."))
		              : k);
	}
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const char *m = cfg->extensions[e].module;
		if (m && !strchr(m, '.'))
			push_once(a, out, m);
	}
}

static bool read_extension(struct cfg_reader *r, struct config *cfg, const struct toml_value *t,
                           const char *where, struct extension_cfg *x)
{
	x->where = t;
	bool ok = cfg_check_keys(r, t, where, extension_keys, N(extension_keys));
	ok &= cfg_string(r, t, "module", where, &x->module);
	if (!x->module) {
		cfg_error(r, t, "%s needs 'module', the dotted import name (e.g. \"pkg._C\")",
		          where);
		ok = false;
	} else if (!config_module_name_valid(x->module)) {
		cfg_error(r, toml_get(t, "module"), "'%s' is not a dotted Python module name",
		          x->module);
		ok = false;
	}
	int kind = EXT_CAPI;
	ok &= cfg_enum(r, t, "kind", where, ext_names, N(ext_names), &kind);
	x->kind = (enum ext_kind)kind;
	if (!toml_get(t, "sources")) {
		cfg_error(r, t, "%s needs 'sources' (the binding stub)", where);
		ok = false;
	}
	ok &= read_sources(r, cfg, t, where, &x->sources, &x->files);
	ok &= read_dirs(r, cfg, t, "include-dirs", where, &x->include_dirs);
	ok &= cfg_strv(r, t, "defines", where, false, &x->defines);
	ok &= cfg_strv(r, t, "cflags", where, false, &x->cflags);
	ok &= cfg_strv(r, t, "nvcc-flags", where, false, &x->nvcc_flags);
	ok &= config_check_args(r, t, "nvcc-flags", ARG_NVCC_FLAG);
	x->own_nvcc_flags = toml_get(t, "nvcc-flags") != NULL;
	ok &= cfg_strv(r, t, "ldflags", where, false, &x->ldflags);
	ok &= cfg_strv(r, t, "libraries", where, false, &x->libraries);
	static const char *const cc_keys[] = {"include-dirs", "defines", "cflags", "ldflags",
	                                      "libraries"};
	for (size_t i = 0; i < N(cc_keys); i++)
		ok &= config_check_args(r, t, cc_keys[i], ARG_CC);
	bool suffix = true;
	ok &= cfg_bool(r, t, "abi-suffix", where, &suffix);
	x->no_abi_suffix = !suffix;
	if (!suffix && x->kind == EXT_ABI3) {
		cfg_error(r, toml_get(t, "abi-suffix"),
		          "abi-suffix = false cannot be used with kind 'abi3' (the .abi3.so name "
		          "is what marks a stable-ABI module)");
		ok = false;
	}
	ok &= cfg_bool(r, t, "abi3", where, &x->abi3);
	static const char *const torch_abi_names[] = {"unstable", "stable"};
	int torch_abi = 0;
	ok &= cfg_enum(r, t, "torch-abi", where, torch_abi_names, N(torch_abi_names), &torch_abi);
	x->torch_stable = torch_abi == 1;
	static const char *const python_free_names[] = {"auto", "off"};
	int python_free = 0;
	ok &= cfg_enum(r, t, "python-free", where, python_free_names, N(python_free_names),
	               &python_free);
	x->python_free_off = python_free == 1;
	static const char *const torch_only[] = {"abi3", "torch-abi", "python-free"};
	for (size_t i = 0; i < N(torch_only); i++)
		if (toml_get(t, torch_only[i]) && x->kind != EXT_TORCH) {
			cfg_error(r, toml_get(t, torch_only[i]),
			          "'%s' is for extensions of kind 'torch'%s", torch_only[i],
			          i == 0 ? " (a C-API module uses kind = \"abi3\")" : "");
			ok = false;
		}
	if (!suffix && x->abi3) {
		cfg_error(r, toml_get(t, "abi-suffix"),
		          "abi-suffix = false cannot be used with abi3 = true (the .abi3.so name "
		          "is what marks a stable-ABI module)");
		ok = false;
	}
	static const char *const loaded_by_names[] = {"import", "path"};
	int loaded_by = 0;
	ok &= cfg_enum(r, t, "loaded-by", where, loaded_by_names, N(loaded_by_names), &loaded_by);
	x->loaded_by_path = loaded_by == 1;
	/* A stable-ABI module and a pybind11 module are Python modules by what they are: the
	 * first is made for `import` by every Python, the second defines PyInit_ itself. */
	if (x->loaded_by_path && (x->kind == EXT_ABI3 || x->kind == EXT_PYBIND11 || x->abi3)) {
		cfg_error(r, toml_get(t, "loaded-by"),
		          "loaded-by = \"path\" cannot be used with %s (%s): it is for a shared "
		          "library the package loads by its path (torch.ops.load_library, "
		          "ctypes.CDLL), of kind 'capi' or 'torch'",
		          x->kind == EXT_PYBIND11 ? "kind 'pybind11'"
		          : x->abi3               ? "abi3 = true"
		                                  : "kind 'abi3'",
		          x->kind == EXT_PYBIND11 ? "pybind11 defines the module's PyInit_ itself"
		                                  : "a stable-ABI module is one Python imports");
		ok = false;
	}
	int pch = TRI_AUTO;
	ok &= cfg_enum(r, t, "pch", where, tri_names, N(tri_names), &pch);
	x->pch = (enum tristate)pch;
	ok &= cfg_strv(r, t, "pch-exclude", where, false, &x->pch_exclude);
	for (size_t i = 0; i < x->pch_exclude.n; i++) {
		bool hit = false;
		for (size_t f = 0; f < x->files.n && !hit; f++)
			hit = fnmatch(x->pch_exclude.v[i], x->files.v[f], FNM_PATHNAME) == 0;
		if (!hit) {
			cfg_error(r, toml_get(t, "pch-exclude"),
			          "pch-exclude '%s' names none of the extension's sources",
			          x->pch_exclude.v[i]);
			ok = false;
		}
	}
	return ok;
}

static bool read_extensions(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool)
{
	const struct toml_value *v = toml_get(tool, "extension");
	if (!v)
		return true;
	if (v->type == TOML_TABLE) {
		cfg->extensions = arena_calloc(r->a, 1, sizeof(*cfg->extensions));
		cfg->n_extensions = 1;
		return read_extension(r, cfg, v, "[tool.cuwheel.extension]", cfg->extensions);
	}
	if (v->type != TOML_ARRAY) {
		cfg_error(r, v, "[tool.cuwheel].extension must be a table or an array of tables");
		return false;
	}
	bool ok = true;
	cfg->extensions = arena_calloc(r->a, v->u.array.len, sizeof(*cfg->extensions));
	for (size_t i = 0; i < v->u.array.len; i++) {
		const struct toml_value *e = v->u.array.items[i];
		if (e->type != TOML_TABLE) {
			cfg_error(r, e, "[[tool.cuwheel.extension]] entries must be tables");
			ok = false;
			continue;
		}
		char *where = arena_printf(r->a, "[[tool.cuwheel.extension]] #%zu", i + 1);
		ok &= read_extension(r, cfg, e, where, &cfg->extensions[cfg->n_extensions++]);
	}
	return ok;
}

static bool read_entries(struct cfg_reader *r, const struct toml_value *t, const char *key,
                         struct matrix_entry **out, size_t *n)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (v->type != TOML_ARRAY) {
		cfg_error(r, v,
		          "[tool.cuwheel.matrix].%s must be an array of tables like "
		          "{python = \"3.12\", cuda = \"12.4\"}",
		          key);
		return false;
	}
	bool ok = true;
	*out = arena_calloc(r->a, v->u.array.len, sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < v->u.array.len; i++) {
		const struct toml_value *e = v->u.array.items[i];
		char *where = arena_printf(r->a, "[tool.cuwheel.matrix].%s[%zu]", key, i);
		if (e->type != TOML_TABLE) {
			cfg_error(r, e, "%s must be a table", where);
			ok = false;
			continue;
		}
		if (e->u.table.len == 0) {
			cfg_error(r, e, "%s is empty: it would match every cell", where);
			ok = false;
			continue;
		}
		ok &= cfg_check_keys(r, e, where, entry_keys, N(entry_keys));
		struct matrix_entry *m = &(*out)[(*n)++];
		m->where = e;
		ok &= cfg_string(r, e, "python", where, &m->python);
		ok &= cfg_string(r, e, "cuda", where, &m->cuda);
		ok &= cfg_string(r, e, "torch", where, &m->torch);
		ok &= cfg_string(r, e, "platform", where, &m->platform);
	}
	return ok;
}

static bool read_matrix(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool)
{
	struct matrix_cfg *m = &cfg->matrix;
	const char *where = "[tool.cuwheel.matrix]";
	const struct toml_value *t = cfg_table(r, tool, "matrix", "[tool.cuwheel]");
	if (!t)
		return true;
	bool ok = cfg_check_keys(r, t, where, matrix_keys, N(matrix_keys));
	ok &= cfg_strv(r, t, "python", where, true, &m->python);
	ok &= cfg_strv(r, t, "cuda", where, true, &m->cuda);
	ok &= cfg_strv(r, t, "torch", where, true, &m->torch);
	ok &= cfg_strv(r, t, "platform", where, true, &m->platform);
	/* An empty axis written out is a mistake (a CI variable that expanded to nothing), not
	 * a request for the default axis: absent keys give the defaults. */
	static const char *const axes[] = {"python", "cuda", "torch", "platform"};
	for (size_t i = 0; i < N(axes); i++) {
		const struct toml_value *v = toml_get(t, axes[i]);
		if (v && v->type == TOML_ARRAY && v->u.array.len == 0) {
			cfg_error(r, v,
			          "matrix.%s = [] lists no value: remove the key for the "
			          "default axis, or list at least one",
			          axes[i]);
			ok = false;
		}
	}
	ok &= read_entries(r, t, "include", &m->include, &m->n_include);
	ok &= read_entries(r, t, "exclude", &m->exclude, &m->n_exclude);
	ok &= cfg_strv(r, t, "build", where, true, &m->build);
	ok &= cfg_strv(r, t, "skip", where, true, &m->skip);
	ok &= cfg_string(r, t, "local-version", where, &m->local_version);
	ok &= cfg_bool(r, t, "abi3-per-python", where, &m->abi3_per_python);
	return ok;
}

bool config_read_tool(struct cfg_reader *r, struct config *cfg)
{
	const struct toml_value *tool = NULL;
	const struct toml_value *t = toml_get(cfg->root, "tool");
	if (t && t->type == TOML_TABLE)
		tool = toml_get(t, "cuwheel");
	bool ok = true;
	cfg->compression = 6;
	cfg->cache.ccache = TRI_AUTO;
	const char *build_dir = "build/cuwheel", *dist_dir = "dist";
	read_kernels(r, cfg, NULL); /* defaults */
	if (tool) {
		if (tool->type != TOML_TABLE) {
			cfg_error(r, tool, "[tool.cuwheel] must be a table");
			return false;
		}
		ok &= cfg_check_keys(r, tool, "[tool.cuwheel]", tool_keys, N(tool_keys));
		ok &= read_kernels(r, cfg, tool);
		ok &= read_extensions(r, cfg, tool);
		ok &= config_check_code_flags(r, tool);
		const struct toml_value *pk = toml_get(tool, "packages");
		if (pk && pk->type == TOML_STRING) {
			ok &= config_find_packages(r, cfg, pk);
		} else {
			ok &= config_read_packages(r, cfg, tool);
			ok &= config_check_args(r, tool, "packages", ARG_PATH);
		}
		ok &= config_read_python_files(r, cfg, tool);
		struct strv setup_env = {
		    0}; /* the capture's (cli/capture_run.c); checked here too */
		if (!config_setup_env(r->a, r->d, r->src, tool, &setup_env))
			ok = r->ok = false;
		ok &= config_check_args(r, tool, "build-dir", ARG_CC);
		ok &= config_check_args(r, tool, "dist-dir", ARG_CC);
		int om = TRI_OFF;
		ok &= cfg_enum(r, tool, "openmp", "[tool.cuwheel]", tri_names, N(tri_names), &om);
		cfg->openmp = (enum tristate)om;
		ok &= read_matrix(r, cfg, tool);
		const struct toml_value *tt = cfg_table(r, tool, "test", "[tool.cuwheel]");
		if (tt) {
			const char *w = "[tool.cuwheel.test]";
			ok &= cfg_check_keys(r, tt, w, test_keys, N(test_keys));
			ok &= cfg_strv(r, tt, "requires", w, true, &cfg->test.requires);
			ok &= cfg_string(r, tt, "command", w, &cfg->test.command);
			ok &= read_dirs(r, cfg, tt, "find-links", w, &cfg->test.find_links);
			int tf = 0;
			ok &=
			    cfg_enum(r, tt, "torch", w, test_torch_names, N(test_torch_names), &tf);
			cfg->test.torch_from_index = tf == 1;
			ok &= cfg_strv(r, tt, "torch-compat", w, false, &cfg->test.torch_compat);
			int tr = 0;
			ok &= cfg_enum(r, tt, "torch-requires", w, torch_requires_names,
			               N(torch_requires_names), &tr);
			cfg->test.torch_requires_tested = tr == 1;
		}
		ok &= cfg_str_table(r, tool, "toolkits", "[tool.cuwheel]", &cfg->toolkits);
		/* "3.12" = [path, path]: interpreters of one version, such as one venv per torch.
		 */
		ok &= cfg_str_multi_table(r, tool, "pythons", "[tool.cuwheel]", &cfg->pythons);
		/* A toolkit's nvcc and include dir, a Python's include dir are written into
		 * build.ninja: a line break in the path would add a line to it. */
		static const char *const tools[] = {"toolkits", "pythons"};
		for (size_t k = 0; k < N(tools); k++) {
			const struct toml_value *tv = toml_get(tool, tools[k]);
			for (size_t i = 0; tv && tv->type == TOML_TABLE && i < tv->u.table.len; i++)
				ok &= config_check_args(r, tv, tv->u.table.items[i].key, ARG_CC);
		}
		const struct toml_value *ct = cfg_table(r, tool, "cache", "[tool.cuwheel]");
		if (ct) {
			const char *w = "[tool.cuwheel.cache]";
			ok &= cfg_check_keys(r, ct, w, cache_keys, N(cache_keys));
			int e = TRI_AUTO;
			ok &= cfg_enum(r, ct, "ccache", w, tri_names, N(tri_names), &e);
			cfg->cache.ccache = (enum tristate)e;
			ok &= cfg_string(r, ct, "remote", w, &cfg->cache.remote);
			ok &= cfg_string(r, ct, "dir", w, &cfg->cache.dir);
		}
		const struct toml_value *at = cfg_table(r, tool, "audit", "[tool.cuwheel]");
		if (at) {
			const char *w = "[tool.cuwheel.audit]";
			ok &= cfg_check_keys(r, at, w, audit_keys, N(audit_keys));
			ok &= cfg_string(r, at, "min-manylinux", w, &cfg->audit.min_manylinux);
			ok &= cfg_bool(r, at, "strict", w, &cfg->audit.strict);
		}
		ok &= read_ci(r, cfg, tool);
		ok &= cfg_string(r, tool, "build-dir", "[tool.cuwheel]", &build_dir);
		ok &= cfg_string(r, tool, "dist-dir", "[tool.cuwheel]", &dist_dir);
		ok &= cfg_int(r, tool, "compression", "[tool.cuwheel]", 0, 9, &cfg->compression);
	}
	const char *base = cfg->base_dir ? cfg->base_dir : cfg->project_dir;
	/* One rule for every path of the config: relative to the file that holds it (with
	 * --config, that file's directory; else the project's). */
	for (size_t i = 0; i < cfg->pythons.n; i++)
		if (cfg->pythons.v[i].value[0] != '/')
			cfg->pythons.v[i].value = os_join(r->a, base, cfg->pythons.v[i].value);
	cfg->build_dir = build_dir[0] == '/' ? build_dir : os_join(r->a, base, build_dir);
	cfg->dist_dir = dist_dir[0] == '/' ? dist_dir : os_join(r->a, base, dist_dir);
	return ok;
}
