/* config.c: loads pyproject.toml, applies CUWHEEL_* overrides and checks what spans tables. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/os-file.h"
#include "matrix/config_internal.h"
#include "matrix/matrix.h"
#include "matrix/testcmd.h"
#include "standards/platform.h"
#include "standards/version.h"

static const char *const template_fields[] = {
    "cuda", "cuda_nodot", "cuda_major", "torch", "torch_nodot", "python", "python_nodot",
};
#define N(a) (sizeof(a) / sizeof(*(a)))

static bool config_read_all(struct arena *a, struct diag *d, const char *const *env,
                            struct config *cfg);
static bool config_load_file(struct arena *a, struct diag *d, const char *config_file,
                             const char *sdist, const char *const *env, struct config *cfg);

/* Axis value checks: NULL when fine, else the reason. */
static const char *check_python(struct arena *a, const char *v)
{
	const char *p = v;
	if (*p++ != '3' || *p++ != '.' || !isdigit((unsigned char)*p))
		return arena_printf(a, "'%s' is not a CPython version like \"3.12\" or \"3.13t\"",
		                    v);
	int minor = atoi(p);
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == 't') {
		p++;
		if (!*p && minor < 13)
			return arena_printf(a,
			                    "'%s' asks for a free-threaded Python 3.%d, but "
			                    "free-threaded CPython starts at 3.13 (\"3.13t\")",
			                    v, minor);
	}
	if (*p)
		return arena_printf(a, "'%s' is not a CPython version like \"3.12\" or \"3.13t\"",
		                    v);
	return NULL;
}

static const char *check_dotted(struct arena *a, const char *v, const char *what, bool glob)
{
	const char *p = v;
	if (glob && strchr(v, '*'))
		return NULL;
	if (!isdigit((unsigned char)*p))
		goto bad;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		goto bad;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p)
		goto bad;
	return NULL;
bad:
	return arena_printf(a, "'%s' is not a %s version like \"%s\"", v, what,
	                    strcmp(what, "CUDA") ? "2.6" : "12.4");
}

static const char *check_platform(struct arena *a, const char *v)
{
	if (platform_find(v))
		return NULL;
	size_t n = platform_count();
	const char **names = arena_calloc(a, n, sizeof(*names));
	struct strbuf all = {0};
	for (size_t i = 0; i < n; i++) {
		names[i] = platform_at(i)->tag;
		sb_printf(&all, "%s%s", i ? ", " : "", names[i]);
	}
	const char *close = diag_did_you_mean(v, names, n);
	return arena_printf(a, "'%s' is not a platform cuwheel builds for (%s)%s%s%s", v,
	                    sb_to_arena(&all, a), close ? "; did you mean '" : "",
	                    close ? close : "", close ? "'?" : "");
}

static const char *check_template(struct arena *a, const char *t)
{
	for (const char *p = t; *p; p++) {
		if (*p == '}')
			return arena_printf(a, "unbalanced '}' in '%s'", t);
		if (*p != '{')
			continue;
		const char *e = strchr(p, '}');
		if (!e)
			return arena_printf(a, "unclosed '{' in '%s'", t);
		bool known = false;
		for (size_t i = 0; i < N(template_fields); i++)
			if (strlen(template_fields[i]) == (size_t)(e - p - 1) &&
			    !strncmp(p + 1, template_fields[i], (size_t)(e - p - 1)))
				known = true;
		if (!known)
			return arena_printf(a,
			                    "unknown field '{%.*s}' in '%s' (fields: cuda, "
			                    "cuda_nodot, cuda_major, torch, torch_nodot, python, "
			                    "python_nodot)",
			                    (int)(e - p - 1), p + 1, t);
		p = e;
	}
	for (const char *p = t; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("{}._-", *p)))
			return arena_printf(a,
			                    "'%s' contains '%c', which a local version label "
			                    "cannot hold",
			                    t, *p);
	/* The fields only hold digits and dots, so one sample rendering shows whether the
	 * separators and their placement make a valid PEP 440 local label ("-cu", "cu..x"). */
	char *sample = matrix_local_label(a, t, "3.12", "12.4", "2.6");
	if (strlen(sample) > CONFIG_LOCAL_MAX)
		return arena_printf(a,
		                    "'%.40s...' renders as a %zu-character local version label; at "
		                    "most %d fit in a wheel's file name",
		                    t, strlen(sample), CONFIG_LOCAL_MAX);
	const char *err = NULL;
	if (sample[0] && !pep440_normalize_local(a, sample, &err))
		return arena_printf(a,
		                    "'%s' renders as '%s', which is not a valid local version "
		                    "label (alphanumerics separated by single '.', '-' or '_')",
		                    t, sample);
	return NULL;
}

/* True when the local-version template t names a torch field. */
static bool template_uses_torch(const char *t)
{
	return t && strstr(t, "{torch");
}

typedef const char *axis_check_fn(struct arena *a, const char *v);
static const char *check_cuda(struct arena *a, const char *v)
{
	return check_dotted(a, v, "CUDA", true);
}
static const char *check_torch(struct arena *a, const char *v)
{
	return check_dotted(a, v, "torch", false);
}

/* The CUWHEEL_MATRIX_* variable that overrides axis key ("python" -> CUWHEEL_MATRIX_PYTHON). */
static const char *axis_env_name(struct arena *a, const char *key)
{
	char *n = arena_printf(a, "CUWHEEL_MATRIX_%s", key);
	for (char *p = n; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return n;
}

/* Reports an error about value i of matrix axis key: at its place in pyproject.toml when it
 * came from there, else naming the environment variable that set it. */
static void axis_error(struct cfg_reader *r, const struct toml_value *m, const char *key, size_t i,
                       const char *value, const char *fmt, ...) CW_PRINTF(6, 7);
static void axis_error(struct cfg_reader *r, const struct toml_value *m, const char *key, size_t i,
                       const char *value, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	const struct toml_value *tv = toml_get(m, key);
	const struct toml_value *at = NULL;
	if (tv && tv->type == TOML_ARRAY && i < tv->u.array.len)
		at = tv->u.array.items[i];
	else if (tv && tv->type == TOML_STRING)
		at = tv;
	if (at && at->type == TOML_STRING && !strcmp(at->u.str.s, value)) {
		cfg_error(r, at, "%s", buf);
	} else {
		diag_path(r->d, DIAG_ERROR, axis_env_name(r->a, key), "%s", buf);
		r->ok = false;
	}
}

static bool check_axis(struct cfg_reader *r, const struct toml_value *m, const char *key,
                       const struct strv *vals, axis_check_fn *fn)
{
	bool ok = true;
	for (size_t i = 0; i < vals->n; i++) {
		const char *why = fn(r->a, vals->v[i]);
		if (!why)
			continue;
		axis_error(r, m, key, i, vals->v[i], "[tool.cuwheel.matrix].%s: %s", key, why);
		ok = false;
	}
	return ok;
}

/* The test command's placeholders stand where a path stays one argument (matrix/testcmd.h):
 * else an error at the command (or naming CUWHEEL_TEST_COMMAND, which set it). */
static bool check_test_command(struct cfg_reader *r, struct config *cfg)
{
	if (!cfg->test.command)
		return true;
	const char *why;
	size_t at;
	if (testcmd_expand(r->a, cfg->test.command, &why, &at))
		return true;
	const struct toml_value *t = toml_get(cfg->root, "tool");
	t = t && t->type == TOML_TABLE ? toml_get(t, "cuwheel") : NULL;
	t = t && t->type == TOML_TABLE ? toml_get(t, "test") : NULL;
	const struct toml_value *v = t && t->type == TOML_TABLE ? toml_get(t, "command") : NULL;
	const char *msg = arena_printf(r->a, "test command: %s (at byte %zu of '%s')", why, at + 1,
	                               config_shown(r->a, cfg->test.command));
	if (v && v->type == TOML_STRING && !strcmp(v->u.str.s, cfg->test.command)) {
		cfg_error(r, v, "%s", msg);
	} else {
		diag_path(r->d, DIAG_ERROR, "CUWHEEL_TEST_COMMAND", "%s", msg);
		r->ok = false;
	}
	diag_msg(r->d, DIAG_HINT,
	         "write {project} or {wheel} unquoted, as a whole argument (python -m pytest "
	         "{project}/tests); inside code, read the environment: "
	         "os.environ[\"" TESTCMD_PROJECT_VAR "\"], os.environ[\"" TESTCMD_WHEEL_VAR "\"]");
	return false;
}

/* [tool.cuwheel.test] torch-compat and torch-requires (after env overrides): MAJOR.MINOR
 * torches, each once; "tested" needs torches to test. Errors at the value in pyproject.toml,
 * else naming the variable that set it. */
static bool check_torch_compat(struct cfg_reader *r, struct config *cfg,
                               const struct toml_value *tool)
{
	const struct toml_value *t = toml_get(tool, "test");
	const struct toml_value *tc =
	    t && t->type == TOML_TABLE ? toml_get(t, "torch-compat") : NULL;
	bool ok = true;
	for (size_t i = 0; i < cfg->test.torch_compat.n; i++) {
		const char *v = cfg->test.torch_compat.v[i];
		const char *why = check_torch(r->a, v);
		for (size_t k = 0; k < i && !why; k++)
			if (!strcmp(cfg->test.torch_compat.v[k], v))
				why = arena_printf(r->a, "'%s' is listed twice", v);
		if (!why)
			continue;
		const struct toml_value *at = tc && tc->type == TOML_ARRAY && i < tc->u.array.len
		                                  ? tc->u.array.items[i]
		                                  : NULL;
		if (at && at->type == TOML_STRING && !strcmp(at->u.str.s, v)) {
			cfg_error(r, at, "[tool.cuwheel.test].torch-compat: %s", why);
		} else {
			diag_path(r->d, DIAG_ERROR, "CUWHEEL_TEST_TORCH_COMPAT", "%s", why);
			r->ok = false;
		}
		ok = false;
	}
	if (cfg->test.torch_requires_tested && !cfg->test.torch_compat.n) {
		const struct toml_value *tr =
		    t && t->type == TOML_TABLE ? toml_get(t, "torch-requires") : NULL;
		const char *msg = "torch-requires = \"tested\" needs torch-compat: the torches to "
		                  "prove the range with";
		if (tr && tr->type == TOML_STRING && !strcmp(tr->u.str.s, "tested")) {
			cfg_error(r, tr, "%s", msg);
		} else {
			diag_path(r->d, DIAG_ERROR, "CUWHEEL_TEST_TORCH_REQUIRES", "%s", msg);
			r->ok = false;
		}
		diag_msg(r->d, DIAG_HINT,
		         "torch-compat = [\"2.9\", \"2.10\"] under [tool.cuwheel.test]");
		ok = false;
	}
	return ok;
}

/* The include and exclude entries of the matrix: each value checked as its axis checks it;
 * an include entry names one concrete cell. */
static bool check_matrix_entries(struct cfg_reader *r, const struct config *cfg)
{
	bool ok = true;
	for (size_t i = 0; i < cfg->matrix.n_include + cfg->matrix.n_exclude; i++) {
		bool inc = i < cfg->matrix.n_include;
		const struct matrix_entry *e =
		    inc ? &cfg->matrix.include[i] : &cfg->matrix.exclude[i - cfg->matrix.n_include];
		/* exclude matches cells with globs; include names one concrete cell. */
		const struct {
			const char *key, *val;
			axis_check_fn *fn;
		} fields[] = {
		    {"python", e->python, check_python},
		    {"cuda", e->cuda, check_cuda},
		    {"torch", e->torch, check_torch},
		    {"platform", e->platform, check_platform},
		};
		for (size_t f = 0; f < N(fields); f++) {
			const char *v = fields[f].val;
			if (!v)
				continue;
			const struct toml_value *at = toml_get(e->where, fields[f].key);
			if (strpbrk(v, "*?[")) {
				if (inc) {
					cfg_error(r, at,
					          "an include entry adds one cell: %s = '%s' "
					          "cannot be a glob",
					          fields[f].key, v);
					ok = false;
				}
				continue;
			}
			const char *why = fields[f].fn(r->a, v);
			if (why) {
				cfg_error(r, at, "%s", why);
				ok = false;
			}
		}
		if (inc && (!e->python || !e->cuda)) {
			cfg_error(r, e->where,
			          "an include entry adds a cell: it needs at least "
			          "python and cuda");
			diag_msg(r->d, DIAG_HINT,
			         "write it like {python = \"3.13\", cuda = "
			         "\"13.0\"}");
			ok = false;
		}
		if (inc && e->torch && cfg->matrix.torch.n == 0) {
			cfg_error(r, toml_get(e->where, "torch"),
			          "an include entry names torch, but "
			          "the matrix has no torch axis");
			ok = false;
		}
	}
	return ok;
}

/* local-version's template, and a local label in version beside one stamped per cell. */
static bool check_local_version(struct cfg_reader *r, const struct config *cfg,
                                const struct toml_value *m)
{
	bool ok = true;
	const struct toml_value *lv = toml_get(m, "local-version");
	bool lv_from_file = lv && lv->type == TOML_STRING && cfg->matrix.local_version &&
	                    !strcmp(lv->u.str.s, cfg->matrix.local_version);
	if (cfg->matrix.local_version) {
		const char *why = check_template(r->a, cfg->matrix.local_version);
		if (why) {
			if (lv_from_file)
				cfg_error(r, lv, "local-version: %s", why);
			else
				diag_path(r->d, DIAG_ERROR, "CUWHEEL_LOCAL_VERSION", "%s", why),
				    r->ok = false;
			ok = false;
		}
	}
	if (template_uses_torch(cfg->matrix.local_version) && cfg->matrix.torch.n == 0) {
		const char *msg = "local-version names a torch field, but the matrix has no "
		                  "torch axis";
		if (lv_from_file)
			cfg_error(r, lv, "%s", msg);
		else
			diag_path(r->d, DIAG_ERROR, "CUWHEEL_LOCAL_VERSION", "%s", msg),
			    r->ok = false;
		ok = false;
	}
	/* A local label written in version and one stamped per cell cannot both be kept. */
	const char *tmpl = cfg->matrix.local_version;
	bool tmpl_from_env = tmpl && !lv_from_file;
	if (cfg->project.version_local && tmpl_from_env && tmpl[0]) {
		cfg_error(
		    r, toml_get(toml_get(cfg->root, "project"), "version"),
		    "version '%s+%s' has a local label, and CUWHEEL_LOCAL_VERSION='%s' stamps "
		    "one per cell",
		    cfg->project.version, cfg->project.version_local, tmpl);
		diag_msg(
		    r->d, DIAG_HINT,
		    "set CUWHEEL_LOCAL_VERSION= (empty) to keep '+%s' on every wheel, or write "
		    "version = \"%s\"",
		    cfg->project.version_local, cfg->project.version);
		ok = false;
	} else if (cfg->project.version_local && (!tmpl || tmpl[0])) {
		cfg_error(r, toml_get(toml_get(cfg->root, "project"), "version"),
		          "version '%s+%s' has a local label, and cuwheel stamps one per cell "
		          "(%slocal-version '%s')",
		          cfg->project.version, cfg->project.version_local,
		          tmpl ? "" : "the default ", tmpl ? tmpl : "cu{cuda_nodot}");
		diag_msg(r->d, DIAG_HINT,
		         "write version = \"%s\", or set local-version = \"\" "
		         "to keep '+%s' on every wheel",
		         cfg->project.version, cfg->project.version_local);
		ok = false;
	}
	return ok;
}

/* Python axis values that requires-python excludes can never be built. */
static bool check_requires_python(struct cfg_reader *r, const struct config *cfg,
                                  const struct toml_value *m)
{
	bool ok = true;
	if (cfg->project.requires_python) {
		for (size_t i = 0; i < cfg->matrix.python.n; i++) {
			struct pep440 v;
			const char *err = NULL;
			char *ver = arena_strdup(r->a, cfg->matrix.python.v[i]);
			size_t n = strlen(ver);
			if (n && ver[n - 1] == 't')
				ver[n - 1] = '\0';
			if (!pep440_parse(r->a, ver, &v, &err))
				continue;
			if (!pep440_satisfies(r->a, &v, cfg->project.requires_python, &err) &&
			    !err) {
				axis_error(r, m, "python", i, cfg->matrix.python.v[i],
				           "Python %s is excluded by requires-python '%s'",
				           cfg->matrix.python.v[i], cfg->project.requires_python);
				diag_msg(r->d, DIAG_HINT,
				         "remove it from the python axis, or widen "
				         "requires-python");
				ok = false;
			}
		}
	}
	return ok;
}

/* The extensions: unique modules in shipped packages, the torch versions abi3 and the stable
 * ABI need, a torch axis exactly when a torch extension (or torch kernels) needs one; rdc. */
static bool check_extensions(struct cfg_reader *r, const struct config *cfg,
                             const struct toml_value *m)
{
	bool ok = true;
	bool has_torch_ext = false;
	for (size_t i = 0; i < cfg->n_extensions; i++) {
		const struct extension_cfg *x = &cfg->extensions[i];
		if (x->kind == EXT_TORCH)
			has_torch_ext = true;
		for (size_t j = 0; j < i; j++) {
			if (x->module && cfg->extensions[j].module &&
			    !strcmp(x->module, cfg->extensions[j].module)) {
				cfg_error(r, toml_get(x->where, "module"),
				          "extension module '%s' is declared twice", x->module);
				ok = false;
			}
		}
		if (!x->module || !strchr(x->module, '.'))
			continue;
		const char *dot = strchr(x->module, '.');
		char *top = arena_strndup(r->a, x->module, (size_t)(dot - x->module));
		bool shipped = false;
		for (size_t p = 0; p < cfg->packages.n; p++) {
			const char *base = config_package_base(cfg->packages.v[p]);
			if (!strcmp(base, top))
				shipped = true;
		}
		size_t tn = strlen(top);
		for (size_t f = 0; f < cfg->python_files.n; f++) {
			const char *k = cfg->python_files.v[f].key;
			if (!strncmp(k, top, tn) && k[tn] == '/')
				shipped = true;
		}
		if (!shipped) {
			cfg_error(r, toml_get(x->where, "module"),
			          "extension module '%s' lives in package '%s', which "
			          "[tool.cuwheel].packages (or python-files) does not ship",
			          x->module, top);
			diag_msg(r->d, DIAG_HINT, "add the directory of package '%s' to packages",
			         top);
			ok = false;
		}
	}
	/* abi3 torch extensions need torch 2.6 (cpp_extension's py_limited_api), the stable ABI
	 * torch 2.10 (torch/csrc/stable, TORCH_TARGET_VERSION), in every torch of the axis. */
	for (size_t i = 0; i < cfg->n_extensions; i++) {
		const struct extension_cfg *x = &cfg->extensions[i];
		for (int k = 0; k < 2; k++) {
			if (!(k ? x->torch_stable : x->abi3))
				continue;
			const char *key = k ? "torch-abi" : "abi3", *need = k ? "2.10" : "2.6";
			for (size_t t = 0; t < cfg->matrix.torch.n; t++)
				if (version_dotted_cmp(cfg->matrix.torch.v[t], need) < 0) {
					cfg_error(r, toml_get(x->where, key),
					          "%s needs torch %s or later, but the torch axis "
					          "has %s",
					          k ? "torch-abi = \"stable\"" : "abi3 = true",
					          need, cfg->matrix.torch.v[t]);
					ok = false;
					break;
				}
		}
	}
	if (has_torch_ext && cfg->matrix.torch.n == 0) {
		const struct extension_cfg *x = &cfg->extensions[0];
		cfg_error(r, toml_get(x->where, "kind"),
		          "extension kind 'torch' needs a torch axis in [tool.cuwheel.matrix]");
		diag_msg(r->d, DIAG_HINT,
		         "add torch = [\"2.6\"] (the torch versions to build for)");
		ok = false;
	}
	if (cfg->matrix.torch.n && !has_torch_ext && cfg->kernels.uses_torch != TRI_ON) {
		axis_error(r, m, "torch", 0, cfg->matrix.torch.v[0],
		           "a torch axis needs an extension of kind 'torch' (or kernels with "
		           "uses-torch = \"on\")");
		diag_msg(r->d, DIAG_HINT,
		         "set kind = \"torch\" in [tool.cuwheel.extension], or "
		         "remove the torch axis");
		ok = false;
	}
	if (cfg->kernels.rdc && cfg->kernels.files.n == 0) {
		cfg_error(r, toml_get(cfg->kernels.where, "rdc"),
		          "rdc = true needs kernel sources");
		ok = false;
	}
	return ok;
}

/* Checks rules that span several tables (after env overrides). */
static bool config_check(struct cfg_reader *r, struct config *cfg)
{
	bool ok = true;
	const struct toml_value *tool = toml_get(toml_get(cfg->root, "tool"), "cuwheel");
	const struct toml_value *m = toml_get(tool, "matrix");
	ok &= config_check_package_dirs(r, cfg);
	ok &= check_test_command(r, cfg);
	ok &= check_torch_compat(r, cfg, tool);
	ok &= check_axis(r, m, "python", &cfg->matrix.python, check_python);
	ok &= check_axis(r, m, "cuda", &cfg->matrix.cuda, check_cuda);
	ok &= check_axis(r, m, "torch", &cfg->matrix.torch, check_torch);
	ok &= check_axis(r, m, "platform", &cfg->matrix.platform, check_platform);
	ok &= check_matrix_entries(r, cfg);
	ok &= check_local_version(r, cfg, m);
	ok &= check_requires_python(r, cfg, m);
	if (cfg->n_extensions == 0) {
		cfg_error(r, tool,
		          "[tool.cuwheel] declares no extension: cuwheel builds CUDA "
		          "extension modules");
		diag_msg(r->d, DIAG_HINT, "add [tool.cuwheel.extension] with module and sources");
		return false;
	}
	ok &= check_extensions(r, cfg, m);
	return ok;
}

/* CUWHEEL_* overrides. Values that are lists are split on spaces and commas. */
enum env_kind { ENV_LIST, ENV_STRING, ENV_ARCHS, ENV_CUDART, ENV_TRI, ENV_INT };
static const struct {
	const char *name;
	enum env_kind kind;
} env_vars[] = {
    {"CUWHEEL_BUILD", ENV_LIST},
    {"CUWHEEL_SKIP", ENV_LIST},
    {"CUWHEEL_MATRIX_PYTHON", ENV_LIST},
    {"CUWHEEL_MATRIX_CUDA", ENV_LIST},
    {"CUWHEEL_MATRIX_TORCH", ENV_LIST},
    {"CUWHEEL_MATRIX_PLATFORM", ENV_LIST},
    {"CUWHEEL_ARCHS", ENV_ARCHS},
    {"CUWHEEL_CUDART", ENV_CUDART},
    {"CUWHEEL_LOCAL_VERSION", ENV_STRING},
    {"CUWHEEL_CCACHE", ENV_TRI},
    {"CUWHEEL_CACHE_REMOTE", ENV_STRING},
    {"CUWHEEL_BUILD_DIR", ENV_STRING},
    {"CUWHEEL_DIST_DIR", ENV_STRING},
    {"CUWHEEL_TEST_COMMAND", ENV_STRING},
    {"CUWHEEL_TEST_REQUIRES", ENV_LIST},
    {"CUWHEEL_COMPRESSION", ENV_INT},
    {"CUWHEEL_MIN_MANYLINUX", ENV_STRING},
    {"CUWHEEL_PYTHONS", ENV_STRING},
    {"CUWHEEL_TEST_TORCH_COMPAT", ENV_LIST},
    {"CUWHEEL_TEST_TORCH_REQUIRES", ENV_STRING},
};
/* Variables cuwheel reads elsewhere (not config overrides), or that its own scripts and tests
 * set (tools/test exports CUWHEEL_CI_NO_SKIP to every test), so they are not misspellings. */
static const char *const env_other[] = {
    "CUWHEEL_CACHE_DIR",      "CUWHEEL_PYTHON",
    "CUWHEEL_TOOLKIT_WHEELS", "CUWHEEL",
    "CUWHEEL_SOURCE_DIR",     "CUWHEEL_TEST_BASE_PYTHON",
    "CUWHEEL_NINJA",          "CUWHEEL_JOBS",
    "CUWHEEL_TOOLKIT_LOCK",   "CUWHEEL_NVCC_THREADS",
    "CUWHEEL_AUDIT_TRACE",    "CUWHEEL_CI_NO_SKIP",
    "CUWHEEL_TORCH_PYTHONS",  "CUWHEEL_PROBE_TIMEOUT",
    "CUWHEEL_BWRAP",          "CUWHEEL_UNSANDBOXED",
    "CUWHEEL_NVCC_OVERLAP",   "CUWHEEL_EARLY_KERNELS",
    "CUWHEEL_EARLY",
};

static void env_split(struct arena *a, const char *val, struct strv *out)
{
	out->n = 0;
	const char *p = val;
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		const char *s = p;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		if (p > s)
			strv_push(a, out, arena_strndup(a, s, (size_t)(p - s)));
	}
}

static bool env_check_list(struct cfg_reader *r, const char *name, const struct strv *v,
                           axis_check_fn *fn)
{
	bool ok = true;
	for (size_t i = 0; i < v->n; i++) {
		const char *why = fn(r->a, v->v[i]);
		if (why) {
			diag_path(r->d, DIAG_ERROR, name, "%s", why);
			ok = r->ok = false;
		}
	}
	return ok;
}

/* CUWHEEL_PYTHONS="3.12=/venvs/a/bin/python;3.13=/venvs/b/bin/python": replaces the
 * [tool.cuwheel.pythons] table (entries separated by ';' or line breaks, a version may repeat:
 * one venv per torch). A relative path is relative to the config file's directory, as in the
 * table. */
static bool env_pythons(struct cfg_reader *r, struct config *cfg, const char *val)
{
	const char *name = "CUWHEEL_PYTHONS";
	const char *base = cfg->base_dir ? cfg->base_dir : cfg->project_dir;
	struct str_pairs out = {0};
	size_t cap = 0;
	const char *p = val;
	while (*p) {
		size_t n = strcspn(p, ";\n");
		const char *s = p;
		p += n + (p[n] != '\0');
		while (n && isspace((unsigned char)*s))
			s++, n--;
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (!n)
			continue;
		const char *eq = memchr(s, '=', n);
		char *ver = eq ? arena_strndup(r->a, s, (size_t)(eq - s)) : NULL;
		const char *why = ver ? check_python(r->a, ver) : NULL;
		if (!eq || eq == s || eq + 1 == s + n || why) {
			diag_path(r->d, DIAG_ERROR, name,
			          "'%.*s' is not VERSION=PATH (3.12=/venv/bin/python)%s%s", (int)n,
			          s, why ? ": " : "", why ? why : "");
			return false;
		}
		char *path = arena_strndup(r->a, eq + 1, (size_t)(s + n - eq - 1));
		if (strpbrk(path, "\r\t")) {
			diag_path(r->d, DIAG_ERROR, name,
			          "the path of Python %s holds a control character", ver);
			return false;
		}
		if (out.n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			out.v = arena_realloc(r->a, out.v, cap, ncap, sizeof(*out.v));
			cap = ncap;
		}
		out.v[out.n].key = ver;
		out.v[out.n++].value = path[0] == '/' ? path : os_join(r->a, base, path);
	}
	if (!out.n) {
		diag_path(r->d, DIAG_ERROR, name,
		          "lists no interpreter: unset it to keep [tool.cuwheel.pythons]");
		return false;
	}
	cfg->pythons = out;
	return true;
}

/* Applies CUWHEEL_* overrides from env. */
static bool config_apply_env(struct cfg_reader *r, struct config *cfg, const char *const *env)
{
	if (!env)
		return true;
	bool ok = true;
	for (size_t i = 0; env[i]; i++) {
		if (strncmp(env[i], "CUWHEEL_", 8) != 0)
			continue;
		const char *eq = strchr(env[i], '=');
		if (!eq)
			continue;
		char *name = arena_strndup(r->a, env[i], (size_t)(eq - env[i]));
		const char *val = eq + 1;
		size_t k = 0;
		while (k < N(env_vars) && strcmp(env_vars[k].name, name))
			k++;
		if (k == N(env_vars)) {
			bool other = false;
			for (size_t j = 0; j < N(env_other); j++)
				other |= !strcmp(env_other[j], name);
			if (other)
				continue;
			const char *names[N(env_vars)];
			for (size_t j = 0; j < N(env_vars); j++)
				names[j] = env_vars[j].name;
			const char *close = diag_did_you_mean(name, names, N(env_vars));
			diag_path(r->d, DIAG_WARNING, name,
			          "unknown cuwheel environment variable, "
			          "ignored");
			if (close)
				diag_msg(r->d, DIAG_HINT, "did you mean %s?", close);
			continue;
		}
		struct strv list = {0};
		if (env_vars[k].kind == ENV_LIST)
			env_split(r->a, val, &list);
		if (!strncmp(name, "CUWHEEL_MATRIX_", 15) && list.n == 0) {
			/* An empty axis is a CI variable that expanded to nothing: unset means
			 * "the config's axis", empty is an error. */
			diag_path(
			    r->d, DIAG_ERROR, name,
			    "'%s' lists no value: unset %s to keep the config's axis, or list "
			    "at least one",
			    val, name);
			ok = false;
			continue;
		}
		const char *err = NULL;
		if (!strcmp(name, "CUWHEEL_BUILD"))
			cfg->matrix.build = list;
		else if (!strcmp(name, "CUWHEEL_SKIP"))
			cfg->matrix.skip = list;
		else if (!strcmp(name, "CUWHEEL_MATRIX_PYTHON"))
			ok &= env_check_list(r, name, &list, check_python),
			    cfg->matrix.python = list;
		else if (!strcmp(name, "CUWHEEL_MATRIX_CUDA"))
			ok &= env_check_list(r, name, &list, check_cuda), cfg->matrix.cuda = list;
		else if (!strcmp(name, "CUWHEEL_MATRIX_TORCH"))
			ok &= env_check_list(r, name, &list, check_torch), cfg->matrix.torch = list;
		else if (!strcmp(name, "CUWHEEL_MATRIX_PLATFORM"))
			ok &= env_check_list(r, name, &list, check_platform),
			    cfg->matrix.platform = list;
		else if (!strcmp(name, "CUWHEEL_TEST_REQUIRES"))
		cfg->test.requires = list;
		else if (!strcmp(name, "CUWHEEL_ARCHS"))
		{
			if (!cuda_arch_parse_list(r->a, val, ARCH_SPELL_TORCH, &cfg->kernels.archs,
			                          &cfg->kernels.n_archs, &err)) {
				diag_path(r->d, DIAG_ERROR, name, "%s", err);
				ok = false;
			} else {
				cfg->kernels.archs_text = val;
			}
		}
		else if (!strcmp(name, "CUWHEEL_CUDART"))
		{
			if (!strcmp(val, "static"))
				cfg->kernels.cudart = CUDART_STATIC;
			else if (!strcmp(val, "shared"))
				cfg->kernels.cudart = CUDART_SHARED;
			else
				diag_path(r->d, DIAG_ERROR, name,
				          "must be 'static' or 'shared', not "
				          "'%s'",
				          val),
				    ok = false;
		}
		else if (!strcmp(name, "CUWHEEL_CCACHE"))
		{
			size_t t = 0;
			while (t < 3 && strcmp(val, tristate_name((enum tristate)t)))
				t++;
			if (t == 3)
				diag_path(r->d, DIAG_ERROR, name,
				          "must be auto, on or off, not '%s'", val),
				    ok = false;
			else
				cfg->cache.ccache = (enum tristate)t;
		}
		else if (!strcmp(name, "CUWHEEL_COMPRESSION"))
		{
			char *end;
			long lv = strtol(val, &end, 10);
			if (!*val || *end || lv < 0 || lv > 9)
				diag_path(r->d, DIAG_ERROR, name,
				          "must be 0 (stored) to 9, not '%s'", val),
				    ok = false;
			else
				cfg->compression = (int)lv;
		}
		else if (!strcmp(name, "CUWHEEL_LOCAL_VERSION"))
		{
			const char *why = val[0] ? check_template(r->a, val) : NULL;
			if (why)
				diag_path(r->d, DIAG_ERROR, name, "%s", why), ok = false;
			else
				cfg->matrix.local_version = val;
		}
		else if (!strcmp(name, "CUWHEEL_CACHE_REMOTE")) cfg->cache.remote =
		    val[0] ? val : NULL;
		else if (!strcmp(name, "CUWHEEL_BUILD_DIR")) cfg->build_dir = os_abspath(r->a, val);
		else if (!strcmp(name, "CUWHEEL_DIST_DIR")) cfg->dist_dir = os_abspath(r->a, val);
		else if (!strcmp(name, "CUWHEEL_TEST_COMMAND")) cfg->test.command = val;
		else if (!strcmp(name, "CUWHEEL_MIN_MANYLINUX")) cfg->audit.min_manylinux =
		    val[0] ? val : NULL;
		else if (!strcmp(name, "CUWHEEL_PYTHONS")) ok &= env_pythons(r, cfg, val);
		else if (!strcmp(name, "CUWHEEL_TEST_TORCH_COMPAT")) cfg->test.torch_compat = list;
		else if (!strcmp(name, "CUWHEEL_TEST_TORCH_REQUIRES"))
		{
			if (strcmp(val, "build") && strcmp(val, "tested"))
				diag_path(r->d, DIAG_ERROR, name,
				          "must be build or tested, not '%s'", val),
				    ok = false;
			else
				cfg->test.torch_requires_tested = !strcmp(val, "tested");
		}
	}
	if (!ok)
		r->ok = false;
	return ok;
}

bool config_load(struct arena *a, struct diag *d, const char *project_dir, const char *const *env,
                 struct config *cfg)
{
	return config_load_with(a, d, project_dir, NULL, NULL, env, cfg);
}

bool config_load_sdist(struct arena *a, struct diag *d, const char *tree, const char *config_file,
                       const char *sdist, const char *sdist_shown, const char *const *env,
                       struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sdist_shown = sdist_shown;
	return config_load_with(a, d, tree, config_file, sdist, env, cfg);
}

bool config_load_with(struct arena *a, struct diag *d, const char *project_dir,
                      const char *config_file, const char *sdist, const char *const *env,
                      struct config *cfg)
{
	const char *shown = sdist ? cfg->sdist_shown : NULL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->sdist_shown = shown;
	cfg->env = env;
	cfg->project_dir = os_realpath(a, project_dir);
	if (!cfg->project_dir) {
		diag_errno(d, project_dir, "cannot open the project directory");
		return false;
	}
	if (config_file)
		return config_load_file(a, d, config_file, sdist, env, cfg);
	cfg->pyproject = os_join(a, cfg->project_dir, "pyproject.toml");
	if (!os_exists(cfg->pyproject)) {
		diag_path(d, DIAG_ERROR,
		          strcmp(project_dir, ".") ? os_join(a, project_dir, "pyproject.toml")
		                                   : "pyproject.toml",
		          "not found: %s holds no pyproject.toml", cfg->project_dir);
		diag_msg(d, DIAG_HINT, "run cuwheel in the project, or pass -C DIR");
		return false;
	}
	if (config_is_special_file(cfg->pyproject)) {
		diag_path(d, DIAG_ERROR,
		          strcmp(project_dir, ".") ? os_join(a, project_dir, "pyproject.toml")
		                                   : "pyproject.toml",
		          "not a regular file (a directory, FIFO or device cannot be read as the "
		          "manifest)");
		return false;
	}
	if (!os_read_file(a, d, cfg->pyproject, &cfg->src))
		return false;
	/* Show paths relative to where the user is when the project is the current directory. */
	if (!strcmp(project_dir, "."))
		cfg->src.path = "pyproject.toml";
	else
		cfg->src.path = os_join(a, project_dir, "pyproject.toml");
	struct toml_value *root = toml_parse(a, d, &cfg->src);
	if (!root)
		return false;
	cfg->root = root;
	return config_read_all(a, d, env, cfg);
}

/* Reads every table of the parsed manifest, applies the environment, checks. */
static bool config_read_all(struct arena *a, struct diag *d, const char *const *env,
                            struct config *cfg)
{
	struct cfg_reader r = {a, d, &cfg->src, true};
	config_read_metadata(&r, cfg);
	if (r.ok)
		config_default_license_files(&r, cfg);
	config_read_tool(&r, cfg);
	config_apply_env(&r, cfg, env);
	if (r.ok)
		config_check(&r, cfg);
	if (cfg->matrix.platform.n == 0)
		strv_push(a, &cfg->matrix.platform, "linux_x86_64");
	return r.ok;
}

/* --config FILE: the manifest is a file beside the project, not its pyproject.toml. */
static bool config_load_file(struct arena *a, struct diag *d, const char *config_file,
                             const char *sdist, const char *const *env, struct config *cfg)
{
	cfg->config_file = os_realpath(a, config_file);
	if (!cfg->config_file) {
		diag_errno(d, config_file, "cannot open the config file");
		return false;
	}
	if (config_is_special_file(cfg->config_file)) {
		diag_path(d, DIAG_ERROR, config_file, "not a regular file");
		return false;
	}
	cfg->pyproject = cfg->config_file;
	cfg->sdist = sdist;
	char *dir = arena_strdup(a, cfg->config_file);
	*strrchr(dir, '/') = '\0';
	cfg->base_dir = dir[0] ? dir : "/";
	if (!os_read_file(a, d, cfg->config_file, &cfg->src))
		return false;
	cfg->src.path = config_file;
	struct toml_value *root = toml_parse(a, d, &cfg->src);
	if (!root)
		return false;
	cfg->root = root;
	return config_read_all(a, d, env, cfg);
}
