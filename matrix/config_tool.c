/* config_tool.c: [tool.cuwheel] into the build model, with defaults for what is absent. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "base/os.h"
#include "matrix/config_internal.h"

static const char *const tool_keys[] = {
    "kernels", "extension", "packages", "matrix",    "test",     "toolkits",
    "pythons", "cache",     "audit",    "build-dir", "dist-dir", "compression",
};
static const char *const kernels_keys[] = {
    "sources", "include-dirs", "defines", "nvcc-flags", "host-flags",
    "archs",   "cudart",       "rdc",     "uses-torch",
};
static const char *const extension_keys[] = {
    "module", "kind",      "sources", "include-dirs", "defines",
    "cflags", "ldflags",   "libraries", "pch",        "pch-exclude",
};
static const char *const matrix_keys[] = {
    "python",  "cuda",  "torch", "platform",      "include",
    "exclude", "build", "skip",  "local-version", "abi3-per-python",
};
static const char *const entry_keys[] = {"python", "cuda", "torch", "platform"};
static const char *const test_keys[] = {"requires", "command", "find-links", "torch"};
static const char *const test_torch_names[] = {"build", "index"};
static const char *const cache_keys[] = {"ccache", "remote", "dir"};
static const char *const audit_keys[] = {"min-manylinux", "strict"};
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
static const char *const tri_names[] = {
#define X(e, s) s,
    TRISTATES(X)
#undef X
};

const char *ext_kind_name(enum ext_kind k)
{
	return ext_names[k];
}
const char *cudart_kind_name(enum cudart_kind k)
{
	return cudart_names[k];
}
const char *tristate_name(enum tristate t)
{
	return tri_names[t];
}

/* torch.utils.cpp_extension's named architectures. */
static const struct {
	const char *name, *list;
} arch_names[] = {
    {"Kepler+Tesla", "3.7"},     {"Kepler", "3.5+PTX"},
    {"Maxwell+Tegra", "5.3"},    {"Maxwell", "5.0;5.2+PTX"},
    {"Pascal", "6.0;6.1+PTX"},   {"Volta+Tegra", "7.2"},
    {"Volta", "7.0+PTX"},        {"Turing", "7.5+PTX"},
    {"Ampere+Tegra", "8.7"},     {"Ampere", "8.0;8.6+PTX"},
    {"Ada", "8.9+PTX"},          {"Hopper", "9.0+PTX"},
    {"Blackwell+Tegra", "10.1"}, {"Blackwell", "10.0;12.0+PTX"},
};

static bool arch_parse_one(const char *tok, size_t n, struct arch *out)
{
	char buf[32];
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, tok, n);
	buf[n] = '\0';
	char *plus = strstr(buf, "+PTX");
	if (!plus)
		plus = strstr(buf, "+ptx");
	out->ptx = false;
	if (plus) {
		if (plus[4])
			return false;
		out->ptx = true;
		*plus = '\0';
	}
	const char *p = buf;
	if (!isdigit((unsigned char)*p))
		return false;
	int major = 0, minor = 0;
	while (isdigit((unsigned char)*p))
		major = major * 10 + (*p++ - '0');
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return false;
	minor = *p++ - '0';
	out->suffix = '\0';
	if (*p == 'a' || *p == 'f')
		out->suffix = *p++;
	if (*p || major < 1 || major > 20)
		return false;
	/* Arch-specific targets start with sm_90a, family-specific ones with sm_100f: nvcc
	 * rejects sm_86a or sm_90f. */
	if ((out->suffix == 'a' && major < 9) || (out->suffix == 'f' && major < 10))
		return false;
	out->major = major;
	out->minor = minor;
	return true;
}

bool config_parse_archs(struct arena *a, const char *text, struct arch **out, size_t *n,
                        const char **err)
{
	size_t cap = 16, len = 0;
	struct arch *v = arena_calloc(a, cap, sizeof(*v));
	const char *p = text;
	while (*p) {
		while (*p == ';' || *p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != ';' && *p != ',' && !isspace((unsigned char)*p))
			p++;
		size_t tn = (size_t)(p - s);
		const char *expand = NULL;
		for (size_t i = 0; i < N(arch_names); i++)
			if (strlen(arch_names[i].name) == tn && !strncmp(s, arch_names[i].name, tn))
				expand = arch_names[i].list;
		struct arch tmp[4];
		size_t ntmp = 0;
		if (expand) {
			const char *q = expand;
			while (*q) {
				const char *e = strchr(q, ';');
				size_t en = e ? (size_t)(e - q) : strlen(q);
				arch_parse_one(q, en, &tmp[ntmp++]);
				q += en + (e ? 1 : 0);
			}
		} else if (arch_parse_one(s, tn, &tmp[0])) {
			ntmp = 1;
		} else {
			const char *names[N(arch_names)];
			for (size_t i = 0; i < N(arch_names); i++)
				names[i] = arch_names[i].name;
			char *word = arena_strndup(a, s, tn);
			const char *close = diag_did_you_mean(word, names, N(arch_names));
			if (close)
				*err = arena_printf(a,
				                    "'%s' is not an architecture; did you mean "
				                    "'%s'?",
				                    word, close);
			else if (strchr(word, 'a') || strchr(word, 'f'))
				*err = arena_printf(a,
				                    "'%s' is not an architecture ('a' targets "
				                    "start at 9.0a, 'f' targets at 10.0f)",
				                    word);
			else
				*err = arena_printf(a,
				                    "'%s' is not an architecture (write 8.6, 9.0a, "
				                    "12.0+PTX or a name such as Ampere)",
				                    word);
			return false;
		}
		for (size_t k = 0; k < ntmp; k++) {
			bool dup = false;
			for (size_t j = 0; j < len; j++) {
				if (v[j].major == tmp[k].major && v[j].minor == tmp[k].minor &&
				    v[j].suffix == tmp[k].suffix) {
					v[j].ptx |= tmp[k].ptx;
					dup = true;
				}
			}
			if (dup)
				continue;
			if (len == cap) {
				v = arena_realloc(a, v, cap, cap * 2, sizeof(*v));
				cap *= 2;
			}
			v[len++] = tmp[k];
		}
	}
	if (len == 0) {
		*err = "the architecture list is empty";
		return false;
	}
	*out = v;
	*n = len;
	return true;
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
			if (!config_parse_archs(r->a, parts.v[i], &one, &n_one, &err)) {
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
	if (!config_parse_archs(r->a, text, &k->archs, &k->n_archs, &err)) {
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
		if (out->v[i][0] == '/') {
			if (!os_is_dir(out->v[i])) {
				cfg_error(r, at, "include directory '%s' does not exist",
				          out->v[i]);
				ok = false;
			}
			continue;
		}
		if (!config_path_inside(out->v[i])) {
			cfg_error(r, at, "'%s' reaches outside the project directory", out->v[i]);
			ok = false;
		} else if (!os_is_dir(os_join(r->a, cfg->project_dir, out->v[i]))) {
			cfg_error(r, at, "'%s' is not a directory in %s", out->v[i],
			          cfg->project_dir);
			ok = false;
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
		ok &= config_glob(r, cfg, at, globs->v[i], files);
	}
	return ok;
}

static bool read_kernels(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool)
{
	struct kernels_cfg *k = &cfg->kernels;
	const char *where = "[tool.cuwheel.kernels]";
	const char *defaults = "7.5;8.0;8.6;8.9;9.0;10.0;12.0+PTX";
	const char *err;
	config_parse_archs(r->a, defaults, &k->archs, &k->n_archs, &err);
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

static bool module_name_valid(const char *m)
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
	} else if (!module_name_valid(x->module)) {
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
	ok &= cfg_strv(r, t, "ldflags", where, false, &x->ldflags);
	ok &= cfg_strv(r, t, "libraries", where, false, &x->libraries);
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
		ok &= read_dirs(r, cfg, tool, "packages", "[tool.cuwheel]", &cfg->packages);
		ok &= read_matrix(r, cfg, tool);
		const struct toml_value *tt = cfg_table(r, tool, "test", "[tool.cuwheel]");
		if (tt) {
			const char *w = "[tool.cuwheel.test]";
			ok &= cfg_check_keys(r, tt, w, test_keys, N(test_keys));
			ok &= cfg_strv(r, tt, "requires", w, true, &cfg->test.requires);
			ok &= cfg_string(r, tt, "command", w, &cfg->test.command);
			ok &= read_dirs(r, cfg, tt, "find-links", w, &cfg->test.find_links);
			int tf = 0;
			ok &= cfg_enum(r, tt, "torch", w, test_torch_names, N(test_torch_names), &tf);
			cfg->test.torch_from_index = tf == 1;
		}
		ok &= cfg_str_table(r, tool, "toolkits", "[tool.cuwheel]", &cfg->toolkits);
		ok &= cfg_str_table(r, tool, "pythons", "[tool.cuwheel]", &cfg->pythons);
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
		ok &= cfg_string(r, tool, "build-dir", "[tool.cuwheel]", &build_dir);
		ok &= cfg_string(r, tool, "dist-dir", "[tool.cuwheel]", &dist_dir);
		ok &= cfg_int(r, tool, "compression", "[tool.cuwheel]", 0, 9, &cfg->compression);
	}
	cfg->build_dir =
	    build_dir[0] == '/' ? build_dir : os_join(r->a, cfg->project_dir, build_dir);
	cfg->dist_dir = dist_dir[0] == '/' ? dist_dir : os_join(r->a, cfg->project_dir, dist_dir);
	return ok;
}
