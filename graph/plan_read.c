/* plan_read.c: the plan document (plan.json, BUILDGRAPH_PLAN_JSON) read back into a resolved
 * plan (struct graph_plan) that renders alone: the fields the renderer reads; the "matrix"
 * section and the decisions' reasons, which `cuwheel plan` shows, are not read.
 * `cuwheel internal render-ninja` renders build.ninja from it. */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "graph/buildgraph.h"

/* Reads one document; the first error names the file and the JSON path. */
struct rd {
	struct arena *a;
	struct diag *d;
	const char *file;
	bool ok;
};

/* Returns member key of o (at path) when it has JSON type type (JSON_TRUE: a boolean; for
 * strings, null too when nullable), else NULL and, the first time, an error. */
static json_t *rd_get(struct rd *r, json_t *o, const char *path, const char *key, json_type type,
                      bool nullable)
{
	json_t *v = json_object_get(o, key);
	bool fits = v && (json_typeof(v) == type || (type == JSON_TRUE && json_is_boolean(v)) ||
	                  (nullable && json_is_null(v)));
	if (fits)
		return v;
	static const char *const names[] = {"an object", "an array",  "a string",  "an integer",
	                                    "a number",  "a boolean", "a boolean", "null"};
	if (r->ok)
		diag_path(r->d, DIAG_ERROR, r->file, "%s.%s: %s %s", path, key,
		          v ? "is not" : "missing, expected", names[type]);
	r->ok = false;
	return NULL;
}

/* A string member, or NULL where the plan may leave it out (null). */
static const char *rd_opt(struct rd *r, json_t *o, const char *path, const char *key)
{
	json_t *v = rd_get(r, o, path, key, JSON_STRING, true);
	return json_is_string(v) ? arena_strdup(r->a, json_string_value(v)) : NULL;
}

/* A string member that must be there; "" after an error, so nothing reads NULL. */
static const char *rd_str(struct rd *r, json_t *o, const char *path, const char *key)
{
	json_t *v = rd_get(r, o, path, key, JSON_STRING, false);
	return arena_strdup(r->a, json_is_string(v) ? json_string_value(v) : "");
}

/* An integer member in [lo, hi]; lo after an error (the first one is reported). */
static int rd_int(struct rd *r, json_t *o, const char *path, const char *key, int lo, int hi)
{
	json_t *v = rd_get(r, o, path, key, JSON_INTEGER, false);
	json_int_t n = json_integer_value(v);
	if (v && (n < lo || n > hi)) {
		if (r->ok)
			diag_path(r->d, DIAG_ERROR, r->file,
			          "%s.%s: %" JSON_INTEGER_FORMAT " is out of range (%d to %d)",
			          path, key, n, lo, hi);
		r->ok = false;
	}
	return r->ok ? (int)n : lo;
}

static bool rd_bool(struct rd *r, json_t *o, const char *path, const char *key)
{
	return json_is_true(rd_get(r, o, path, key, JSON_TRUE, false));
}

static void rd_strv(struct rd *r, json_t *o, const char *path, const char *key, struct strv *out)
{
	json_t *arr = rd_get(r, o, path, key, JSON_ARRAY, false);
	*out = (struct strv){0};
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *s = json_array_get(arr, i);
		if (!json_is_string(s)) {
			if (r->ok)
				diag_path(r->d, DIAG_ERROR, r->file, "%s.%s[%zu]: is not a string",
				          path, key, i);
			r->ok = false;
			return;
		}
		strv_push(r->a, out, arena_strdup(r->a, json_string_value(s)));
	}
}

/* The array member key of o, and its path for messages. */
static json_t *rd_arr(struct rd *r, json_t *o, const char *path, const char *key)
{
	return rd_get(r, o, path, key, JSON_ARRAY, false);
}

static char *at(struct rd *r, const char *path, const char *key, size_t i)
{
	return arena_printf(r->a, "%s.%s[%zu]", path, key, i);
}

static const char *pch_name(int v)
{
	return pch_state_name((enum pch_state)v);
}

static const char *pyfree_name(int v)
{
	return pyfree_state_name((enum pyfree_state)v);
}

/* A state written by its name (name(0)..name(last)); 0 after an error. */
static int rd_state(struct rd *r, json_t *o, const char *path, const char *key,
                    const char *(*name)(int), int last)
{
	const char *s = rd_str(r, o, path, key);
	for (int v = 0; v <= last; v++)
		if (!strcmp(s, name(v)))
			return v;
	if (r->ok)
		diag_path(r->d, DIAG_ERROR, r->file, "%s.%s: '%s' is not one of the states", path,
		          key, s);
	r->ok = false;
	return 0;
}

static void rd_tflags(struct rd *r, json_t *o, const char *path, struct torch_flags *f)
{
	if (!json_is_object(o)) {
		if (r->ok)
			diag_path(r->d, DIAG_ERROR, r->file, "%s: is not an object", path);
		r->ok = false;
		return;
	}
	rd_strv(r, o, path, "incs", &f->incs);
	rd_strv(r, o, path, "nvcc_common", &f->nvcc_common);
	rd_strv(r, o, path, "post", &f->post);
	rd_strv(r, o, path, "cflags", &f->cflags);
	rd_strv(r, o, path, "ldflags", &f->ldflags);
	f->cudart_shared = rd_bool(r, o, path, "cudart_shared");
}

static const struct interp *rd_interp(struct rd *r, json_t *o, const char *path)
{
	struct interp *py = arena_calloc(r->a, 1, sizeof(*py));
	json_t *io = rd_get(r, o, path, "interpreter", JSON_OBJECT, false);
	if (!io)
		return py;
	const char *p = arena_printf(r->a, "%s.interpreter", path);
	py->path = rd_str(r, io, p, "path");
	py->version = rd_str(r, io, p, "version");
	py->major = rd_int(r, io, p, "major", 0, 99);
	py->minor = rd_int(r, io, p, "minor", 0, 999);
	py->ext_suffix = rd_str(r, io, p, "ext_suffix");
	py->include_dir = rd_str(r, io, p, "include_dir");
	json_t *to = rd_get(r, io, p, "torch", JSON_OBJECT, false);
	if (!to)
		return py;
	p = arena_printf(r->a, "%s.torch", p);
	py->torch.present = rd_bool(r, to, p, "present");
	py->torch.version = rd_opt(r, to, p, "version");
	py->torch.cxx11_abi = rd_int(r, to, p, "cxx11_abi", -1, 1);
	py->torch.openmp = rd_int(r, to, p, "openmp", -1, 1);
	rd_strv(r, to, p, "include_dirs", &py->torch.include_dirs);
	rd_strv(r, to, p, "abi_flags", &py->torch.abi_flags);
	/* A cross torch's (absent from every other plan). */
	if (json_object_get(to, "platform"))
		py->torch.platform = rd_opt(r, to, p, "platform");
	return py;
}

static void rd_toolkit(struct rd *r, json_t *o, const char *path, struct toolkit_plan *tp,
                       struct graph_ktorch *kt)
{
	tp->used = true;
	tp->cuda = rd_str(r, o, path, "cuda");
	json_t *archs = rd_arr(r, o, path, "archs");
	tp->n_archs = json_array_size(archs);
	tp->archs = arena_calloc(r->a, tp->n_archs + 1, sizeof(*tp->archs));
	for (size_t i = 0; i < tp->n_archs; i++) {
		json_t *ao = json_array_get(archs, i);
		const char *p = at(r, path, "archs", i);
		tp->archs[i].major = rd_int(r, ao, p, "major", 1, 99);
		tp->archs[i].minor = rd_int(r, ao, p, "minor", 0, 9);
		tp->archs[i].suffix = (char)rd_int(r, ao, p, "suffix", 0, 'f');
		if (r->ok && tp->archs[i].suffix && tp->archs[i].suffix != 'a' &&
		    tp->archs[i].suffix != 'f') {
			diag_path(r->d, DIAG_ERROR, r->file,
			          "%s.suffix: %d is not 0, 'a' (97) or 'f' (102)", p,
			          tp->archs[i].suffix);
			r->ok = false;
		}
		tp->archs[i].ptx = rd_bool(r, ao, p, "ptx");
	}
	struct toolkit *tk = arena_calloc(r->a, 1, sizeof(*tk));
	tp->tk = tk;
	json_t *to = rd_get(r, o, path, "toolkit", JSON_OBJECT, false);
	const char *p = arena_printf(r->a, "%s.toolkit", path);
	tk->root = rd_str(r, to, p, "root");
	tk->nvcc = rd_str(r, to, p, "nvcc");
	tk->version = rd_str(r, to, p, "version");
	tk->major = rd_int(r, to, p, "major", 1, 99);
	tk->minor = rd_int(r, to, p, "minor", 0, 99);
	tk->lib_dir = rd_str(r, to, p, "lib_dir");
	tk->include_dir = rd_str(r, to, p, "include_dir");
	tk->nvcc_lacks = (unsigned)rd_int(r, to, p, "nvcc_lacks", 0, 15);
	json_t *ho = rd_get(r, to, p, "host", JSON_OBJECT, false);
	p = arena_printf(r->a, "%s.host", p);
	tk->host.ccbin = rd_bool(r, ho, p, "ccbin");
	tk->host.cc = rd_opt(r, ho, p, "cc");
	tk->host.cxx = rd_opt(r, ho, p, "cxx");
	/* A cross toolkit's (absent from every other plan). */
	if (json_object_get(to, "platform")) {
		p = arena_printf(r->a, "%s.toolkit", path);
		tk->platform = rd_opt(r, to, p, "platform");
		tk->target_dir = rd_opt(r, to, p, "target_dir");
		tp->platform = tk->platform;
	}
	json_t *ko = rd_get(r, o, path, "kernels_torch", JSON_OBJECT, true);
	if (!json_is_object(ko))
		return;
	p = arena_printf(r->a, "%s.kernels_torch", path);
	kt->py = rd_interp(r, ko, p);
	rd_tflags(r, json_object_get(ko, "flags"), arena_printf(r->a, "%s.flags", p), &kt->tf);
	rd_strv(r, ko, p, "cpp_post", &kt->cpp_post);
}

static void rd_extension(struct rd *r, json_t *o, const char *p, struct extension_cfg *x)
{
	x->module = rd_str(r, o, p, "module");
	x->kind = (enum ext_kind)rd_int(r, o, p, "kind", EXT_CAPI, EXT_TORCH);
	rd_strv(r, o, p, "files", &x->files);
	rd_strv(r, o, p, "include_dirs", &x->include_dirs);
	rd_strv(r, o, p, "defines", &x->defines);
	rd_strv(r, o, p, "cflags", &x->cflags);
	x->own_nvcc_flags = json_object_get(o, "nvcc_flags") != NULL;
	if (x->own_nvcc_flags)
		rd_strv(r, o, p, "nvcc_flags", &x->nvcc_flags);
	rd_strv(r, o, p, "ldflags", &x->ldflags);
	rd_strv(r, o, p, "libraries", &x->libraries);
	x->no_abi_suffix = rd_bool(r, o, p, "no_abi_suffix");
	x->loaded_by_path = json_is_true(json_object_get(o, "loaded_by_path"));
}

static const struct config *rd_config(struct rd *r, json_t *doc)
{
	struct config *cfg = arena_calloc(r->a, 1, sizeof(*cfg));
	json_t *o = rd_get(r, doc, "$", "config", JSON_OBJECT, false);
	const char *p = "$.config";
	cfg->config_file = rd_opt(r, o, p, "config_file");
	cfg->build_dir = rd_str(r, o, p, "build_dir");
	cfg->project_dir = rd_str(r, o, p, "project_dir");
	cfg->dist_dir = rd_str(r, o, p, "dist_dir");
	cfg->ship_hidden = rd_bool(r, o, p, "ship_hidden");
	cfg->compression = rd_int(r, o, p, "compression", 0, 9);
	cfg->openmp = (enum tristate)rd_int(r, o, p, "openmp", TRI_AUTO, TRI_OFF);
	rd_strv(r, o, p, "packages", &cfg->packages);
	json_t *pf = json_object_get(o, "python_files"); /* optional */
	if (pf && !json_is_array(pf))
		rd_get(r, o, p, "python_files", JSON_ARRAY, false);
	cfg->python_files.v = arena_calloc(r->a, json_array_size(pf) + 1, sizeof(struct str_pair));
	for (size_t i = 0; json_is_array(pf) && i < json_array_size(pf); i++) {
		json_t *e = json_array_get(pf, i);
		const char *dest = json_string_value(json_array_get(e, 0));
		const char *src = json_string_value(json_array_get(e, 1));
		if (json_array_size(e) != 2 || !dest || !src) {
			if (r->ok)
				diag_path(r->d, DIAG_ERROR, r->file,
				          "%s.python_files[%zu]: is not [WHEEL-PATH, SOURCE]", p,
				          i);
			r->ok = false;
			break;
		}
		cfg->python_files.v[cfg->python_files.n++] =
		    (struct str_pair){arena_strdup(r->a, dest), arena_strdup(r->a, src)};
	}
	cfg->project.readme_path = rd_opt(r, o, p, "readme");
	rd_strv(r, o, p, "license_files", &cfg->project.license_files);
	cfg->audit.strict = rd_bool(r, o, p, "audit_strict");
	cfg->audit.min_manylinux = rd_opt(r, o, p, "min_manylinux");
	cfg->test.command = rd_opt(r, o, p, "test_command");
	rd_strv(r, o, p, "torch_compat", &cfg->test.torch_compat);
	cfg->test.torch_requires_tested = rd_bool(r, o, p, "torch_requires_tested");
	json_t *ko = rd_get(r, o, p, "kernels", JSON_OBJECT, false);
	struct kernels_cfg *k = &cfg->kernels;
	const char *kp = "$.config.kernels";
	rd_strv(r, ko, kp, "files", &k->files);
	rd_strv(r, ko, kp, "include_dirs", &k->include_dirs);
	rd_strv(r, ko, kp, "defines", &k->defines);
	rd_strv(r, ko, kp, "nvcc_flags", &k->nvcc_flags);
	rd_strv(r, ko, kp, "host_flags", &k->host_flags);
	rd_strv(r, ko, kp, "cxx_flags", &k->cxx_flags);
	k->cudart = (enum cudart_kind)rd_int(r, ko, kp, "cudart", CUDART_STATIC, CUDART_SHARED);
	k->rdc = rd_bool(r, ko, kp, "rdc");
	json_t *exts = rd_arr(r, o, p, "extensions");
	cfg->n_extensions = json_array_size(exts);
	cfg->extensions = arena_calloc(r->a, cfg->n_extensions + 1, sizeof(*cfg->extensions));
	for (size_t e = 0; e < cfg->n_extensions; e++)
		rd_extension(r, json_array_get(exts, e), at(r, p, "extensions", e),
		             &cfg->extensions[e]);
	return cfg;
}

static void rd_cell(struct rd *r, json_t *o, const char *p, size_t n_ext, size_t n_toolkits,
                    struct cell *c, struct torch_flags *flags)
{
	c->selected = c->buildable = true;
	c->id = rd_str(r, o, p, "id");
	c->python = rd_str(r, o, p, "python");
	c->platform = rd_str(r, o, p, "platform");
	c->abi3 = rd_bool(r, o, p, "abi3");
	c->torch_stable = rd_bool(r, o, p, "torch_stable");
	c->py_tag = rd_str(r, o, p, "py_tag");
	c->abi_tag = rd_str(r, o, p, "abi_tag");
	c->local = rd_opt(r, o, p, "local");
	c->wheel = rd_str(r, o, p, "wheel");
	c->torch = rd_opt(r, o, p, "torch");
	int t = rd_int(r, o, p, "toolkit", 0, n_toolkits > INT_MAX ? INT_MAX : (int)n_toolkits - 1);
	c->toolkit = t > 0 ? (size_t)t : 0;
	c->py = rd_interp(r, o, p);
	json_t *fl = rd_arr(r, o, p, "ext_flags");
	if (r->ok && json_array_size(fl) != n_ext) {
		diag_path(r->d, DIAG_ERROR, r->file, "%s.ext_flags: %zu entries for %zu extensions",
		          p, json_array_size(fl), n_ext);
		r->ok = false;
	}
	for (size_t e = 0; e < n_ext && r->ok; e++)
		rd_tflags(r, json_array_get(fl, e), at(r, p, "ext_flags", e), &flags[e]);
}

static void rd_torchplan(struct rd *r, json_t *doc, const struct config *cfg, struct torch_plan *tp)
{
	json_t *o = rd_get(r, doc, "$", "torch_plan", JSON_OBJECT, false);
	const char *p = "$.torch_plan";
	tp->kernels_use_torch = rd_bool(r, o, p, "kernels_use_torch");
	tp->kernels_pyfree = rd_bool(r, o, p, "kernels_pyfree");
	tp->standins = rd_opt(r, o, p, "standins");
	json_t *exts = rd_arr(r, o, p, "exts");
	tp->n_exts = json_array_size(exts);
	tp->exts = arena_calloc(r->a, tp->n_exts + 1, sizeof(*tp->exts));
	for (size_t e = 0; e < tp->n_exts && r->ok; e++) {
		json_t *eo = json_array_get(exts, e);
		const char *ep = at(r, p, "exts", e);
		struct torch_plan_ext *te = &tp->exts[e];
		te->ext = (size_t)rd_int(r, eo, ep, "ext", 0, (int)cfg->n_extensions - 1);
		te->torch = rd_opt(r, eo, ep, "torch");
		if (!te->torch) /* an extension of another kind: decided per toolkit */
			te->toolkit = (size_t)rd_int(r, eo, ep, "toolkit", 0, INT_MAX);
		te->link = rd_opt(r, eo, ep, "link");
		if (json_object_get(eo, "platform"))
			te->platform = rd_opt(r, eo, ep, "platform");
		te->pch_shared = rd_bool(r, eo, ep, "pch_shared");
		json_t *srcs = rd_arr(r, eo, ep, "srcs");
		if (r->ok && (te->ext >= cfg->n_extensions ||
		              json_array_size(srcs) != cfg->extensions[te->ext].files.n)) {
			diag_path(r->d, DIAG_ERROR, r->file,
			          "%s: not one decision per source of an extension", ep);
			r->ok = false;
			return;
		}
		te->srcs = arena_calloc(r->a, json_array_size(srcs) + 1, sizeof(*te->srcs));
		for (size_t i = 0; i < json_array_size(srcs); i++) {
			json_t *so = json_array_get(srcs, i);
			const char *sp = at(r, ep, "srcs", i);
			te->srcs[i].python = rd_bool(r, so, sp, "python");
			te->srcs[i].pch =
			    (enum pch_state)rd_state(r, so, sp, "pch", pch_name, PCH_REFUSED);
			te->srcs[i].pyfree = (enum pyfree_state)rd_state(
			    r, so, sp, "pyfree", pyfree_name, PYFREE_MODULE);
			if (json_object_get(so, "obj") || json_object_get(so, "obj_for")) {
				te->srcs[i].obj = rd_str(r, so, sp, "obj");
				te->srcs[i].obj_for = rd_str(r, so, sp, "obj_for");
			}
		}
	}
}

static void rd_opts(struct rd *r, json_t *doc, struct build_opts *o)
{
	json_t *oo = rd_get(r, doc, "$", "opts", JSON_OBJECT, false);
	o->jobs = rd_int(r, oo, "$.opts", "jobs", 0, 1 << 16);
	o->ccache = rd_opt(r, oo, "$.opts", "ccache");
	o->cuwheel = rd_str(r, oo, "$.opts", "cuwheel");
	o->run_tests = rd_bool(r, oo, "$.opts", "run_tests");
	o->imported_archives = rd_bool(r, oo, "$.opts", "imported_archives");
	json_t *bw = json_object_get(oo, "bwrap"); /* optional: see plan_write.c */
	o->bwrap = json_is_string(bw) ? arena_strdup(r->a, json_string_value(bw)) : NULL;
}

bool buildgraph_plan_read(struct arena *a, struct diag *d, const char *file, json_t *doc,
                          struct graph_plan *out)
{
	memset(out, 0, sizeof(*out));
	struct rd r = {.a = a, .d = d, .file = file, .ok = true};
	if (!json_is_object(doc) ||
	    rd_int(&r, doc, "$", "format", 0, INT_MAX) != BUILDGRAPH_PLAN_FORMAT) {
		if (r.ok)
			diag_path(d, DIAG_ERROR, file,
			          "$.format: not %d, the plan format this cuwheel reads",
			          BUILDGRAPH_PLAN_FORMAT);
		return false;
	}
	rd_opts(&r, doc, &out->o);
	out->build_dir = rd_str(&r, doc, "$", "build_dir");
	out->proj = rd_str(&r, doc, "$", "proj");
	out->cc = rd_str(&r, doc, "$", "cc");
	out->cxx = rd_str(&r, doc, "$", "cxx");
	out->ncpu = rd_int(&r, doc, "$", "ncpu", 1, 1 << 16);
	out->nvcc_threads = rd_int(&r, doc, "$", "nvcc_threads", 0, 64);
	const struct config *cfg = rd_config(&r, doc);
	struct plan *plan = arena_calloc(a, 1, sizeof(*plan));
	plan->cfg = cfg;
	out->plan = plan;
	json_t *tks = rd_arr(&r, doc, "$", "toolkits");
	plan->n_toolkits = json_array_size(tks);
	plan->toolkits = arena_calloc(a, plan->n_toolkits + 1, sizeof(*plan->toolkits));
	out->ktorch = arena_calloc(a, plan->n_toolkits + 1, sizeof(*out->ktorch));
	for (size_t t = 0; t < plan->n_toolkits && r.ok; t++)
		rd_toolkit(&r, json_array_get(tks, t), at(&r, "$", "toolkits", t),
		           &plan->toolkits[t], &out->ktorch[t]);
	json_t *cells = rd_arr(&r, doc, "$", "cells");
	size_t n_ext = cfg->n_extensions;
	plan->n_cells = json_array_size(cells);
	plan->cells = arena_calloc(a, plan->n_cells + 1, sizeof(*plan->cells));
	out->ext_flags = arena_calloc(a, plan->n_cells * n_ext + 1, sizeof(*out->ext_flags));
	for (size_t i = 0; i < plan->n_cells && r.ok; i++)
		rd_cell(&r, json_array_get(cells, i), at(&r, "$", "cells", i), n_ext,
		        plan->n_toolkits, &plan->cells[i], &out->ext_flags[i * n_ext]);
	rd_torchplan(&r, doc, cfg, &out->tp);
	rd_strv(&r, doc, "$", "package_files", &out->pkgfiles);
	return r.ok;
}
