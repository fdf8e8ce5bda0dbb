/* plan_write.c: a resolved plan (struct graph_plan) as the plan document: what the renderer
 * reads, the reasons of the torch decisions, and the whole matrix as `cuwheel plan` explains it
 * ("matrix": every cell and toolkit, selected or not, and why). One writer: `cuwheel build`
 * (-n too) writes it beside build.ninja (BUILDGRAPH_PLAN_JSON), `cuwheel plan --json` prints
 * it; docs/manual/plan-json.md is its schema. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "graph/buildgraph.h"
#include "standards/cuda_arch.h"
#include "standards/json_values.h"

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jstrv(const struct strv *v)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(arr, json_string(v->v[i]));
	return arr;
}

static json_t *tflags_json(const struct torch_flags *f)
{
	/* Not f->nvcc: only the Windows graph reads it. */
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b}", "incs", jstrv(&f->incs), "nvcc_common",
	                 jstrv(&f->nvcc_common), "post", jstrv(&f->post), "cflags",
	                 jstrv(&f->cflags), "ldflags", jstrv(&f->ldflags), "cudart_shared",
	                 f->cudart_shared);
}

static json_t *interp_json(const struct interp *py)
{
	const struct torch_info *ti = &py->torch;
	json_t *torch =
	    json_pack("{s:b, s:o, s:i, s:i, s:o, s:o}", "present", ti->present, "version",
	              jstr(ti->version), "cxx11_abi", ti->cxx11_abi, "openmp", ti->openmp,
	              "include_dirs", jstrv(&ti->include_dirs), "abi_flags", jstrv(&ti->abi_flags));
	/* Only for a cross torch, so that every other plan reads as before. */
	if (ti->platform)
		json_object_set_new(torch, "platform", json_string(ti->platform));
	return json_pack("{s:o, s:o, s:i, s:i, s:o, s:o, s:o}", "path", jstr(py->path), "version",
	                 jstr(py->version), "major", py->major, "minor", py->minor, "ext_suffix",
	                 jstr(py->ext_suffix), "include_dir", jstr(py->include_dir), "torch",
	                 torch);
}

static json_t *toolkit_json(const struct graph_plan *r, size_t t)
{
	const struct toolkit_plan *tp = &r->plan->toolkits[t];
	json_t *archs = json_array();
	for (size_t i = 0; i < tp->n_archs; i++)
		json_array_append_new(archs,
		                      json_pack("{s:i, s:i, s:i, s:b}", "major", tp->archs[i].major,
		                                "minor", tp->archs[i].minor, "suffix",
		                                tp->archs[i].suffix, "ptx", tp->archs[i].ptx));
	json_t *o = json_pack("{s:s, s:o}", "cuda", tp->cuda, "archs", archs);
	const struct toolkit *tk = tp->tk;
	json_object_set_new(
	    o, "toolkit",
	    json_pack("{s:o, s:o, s:o, s:i, s:i, s:o, s:o, s:i, s:{s:b, s:o, s:o}}", "root",
	              jstr(tk->root), "nvcc", jstr(tk->nvcc), "version", jstr(tk->version), "major",
	              tk->major, "minor", tk->minor, "lib_dir", jstr(tk->lib_dir), "include_dir",
	              jstr(tk->include_dir), "nvcc_lacks", (int)tk->nvcc_lacks, "host", "ccbin",
	              tk->host.ccbin, "cc", jstr(tk->host.cc), "cxx", jstr(tk->host.cxx)));
	/* Only for a cross toolkit, so that every other plan reads as before. */
	if (tk->platform) {
		json_t *tko = json_object_get(o, "toolkit");
		json_object_set_new(tko, "platform", json_string(tk->platform));
		json_object_set_new(tko, "target_dir", jstr(tk->target_dir));
	}
	const struct graph_ktorch *kt = &r->ktorch[t];
	json_object_set_new(o, "kernels_torch",
	                    kt->py ? json_pack("{s:o, s:o, s:o}", "interpreter",
	                                       interp_json(kt->py), "flags", tflags_json(&kt->tf),
	                                       "cpp_post", jstrv(&kt->cpp_post))
	                           : json_null());
	return o;
}

static json_t *config_json(const struct config *cfg)
{
	const struct kernels_cfg *k = &cfg->kernels;
	json_t *exts = json_array();
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const struct extension_cfg *x = &cfg->extensions[e];
		json_t *xj =
		    json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "module", x->module,
		              "kind", (int)x->kind, "files", jstrv(&x->files), "include_dirs",
		              jstrv(&x->include_dirs), "defines", jstrv(&x->defines), "cflags",
		              jstrv(&x->cflags), "ldflags", jstrv(&x->ldflags), "libraries",
		              jstrv(&x->libraries), "no_abi_suffix", x->no_abi_suffix);
		/* Only where the extension has its own (the kernels' otherwise). */
		if (x->own_nvcc_flags)
			json_object_set_new(xj, "nvcc_flags", jstrv(&x->nvcc_flags));
		if (x->loaded_by_path)
			json_object_set_new(xj, "loaded_by_path", json_true());
		json_array_append_new(exts, xj);
	}
	json_t *kj =
	    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:b}", "files", jstrv(&k->files),
	              "include_dirs", jstrv(&k->include_dirs), "defines", jstrv(&k->defines),
	              "nvcc_flags", jstrv(&k->nvcc_flags), "host_flags", jstrv(&k->host_flags),
	              "cxx_flags", jstrv(&k->cxx_flags), "cudart", (int)k->cudart, "rdc", k->rdc);
	json_t *o = json_pack(
	    "{s:o, s:o, s:o, s:o, s:b, s:i, s:i, s:o, s:o, s:o, s:b, s:o, s:o, s:o, "
	    "s:b, s:o, s:o}",
	    "config_file", jstr(cfg->config_file), "build_dir", jstr(cfg->build_dir), "project_dir",
	    jstr(cfg->project_dir), "dist_dir", jstr(cfg->dist_dir), "ship_hidden",
	    cfg->ship_hidden, "compression", cfg->compression, "openmp", (int)cfg->openmp,
	    "packages", jstrv(&cfg->packages), "readme", jstr(cfg->project.readme_path),
	    "license_files", jstrv(&cfg->project.license_files), "audit_strict", cfg->audit.strict,
	    "min_manylinux", jstr(cfg->audit.min_manylinux), "test_command",
	    jstr(cfg->test.command), "torch_compat", jstrv(&cfg->test.torch_compat),
	    "torch_requires_tested", cfg->test.torch_requires_tested, "kernels", kj, "extensions",
	    exts);
	if (cfg->python_files.n) { /* only then: plans without them stay as they were */
		json_t *pf = json_array();
		for (size_t i = 0; i < cfg->python_files.n; i++)
			json_array_append_new(pf, json_pack("[s, s]", cfg->python_files.v[i].key,
			                                    cfg->python_files.v[i].value));
		json_object_set_new(o, "python_files", pf);
	}
	return o;
}

static json_t *cell_json(const struct graph_plan *r, size_t i, size_t toolkit)
{
	const struct cell *c = &r->plan->cells[i];
	size_t n_ext = r->plan->cfg->n_extensions;
	json_t *flags = json_array();
	for (size_t e = 0; e < n_ext; e++)
		json_array_append_new(flags, tflags_json(&r->ext_flags[i * n_ext + e]));
	return json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:o, s:s, s:o, s:I, s:o, s:o}", "id",
	                 c->id, "python", c->python, "platform", c->platform, "abi3", c->abi3,
	                 "torch_stable", c->torch_stable, "py_tag", c->py_tag, "abi_tag",
	                 c->abi_tag, "local", jstr(c->local), "wheel", c->wheel, "torch",
	                 jstr(c->torch), "toolkit", (json_int_t)toolkit, "interpreter",
	                 interp_json(c->py), "ext_flags", flags);
}

static json_t *torchplan_json(const struct torch_plan *tp, const struct config *cfg)
{
	json_t *exts = json_array();
	for (size_t e = 0; e < tp->n_exts; e++) {
		const struct torch_plan_ext *te = &tp->exts[e];
		const struct extension_cfg *x = &cfg->extensions[te->ext];
		json_t *srcs = json_array();
		for (size_t i = 0; i < x->files.n; i++) {
			const struct binding_decision *bd = &te->srcs[i];
			/* The renderer reads python, pch, pyfree (and obj); the rest says why. */
			json_t *so = json_pack(
			    "{s:s, s:b, s:o, s:b, s:s, s:o, s:s, s:o}", "source", x->files.v[i],
			    "python", bd->python, "python_via", jstr(bd->python_via),
			    "torch_extension", bd->torch_ext, "pch", pch_state_name(bd->pch),
			    "pch_why", jstr(bd->pch_why), "pyfree", pyfree_state_name(bd->pyfree),
			    "pyfree_why", jstr(bd->pyfree_why));
			/* The proof's object, where the graph copies it (left out otherwise). */
			if (bd->obj && bd->obj_for) {
				json_object_set_new(so, "obj", json_string(bd->obj));
				json_object_set_new(so, "obj_for", json_string(bd->obj_for));
			}
			json_array_append_new(srcs, so);
		}
		json_t *eo = json_pack("{s:I, s:s, s:o, s:o, s:b, s:o}", "ext", (json_int_t)te->ext,
		                       "module", x->module, "torch", jstr(te->torch), "link",
		                       jstr(te->link), "pch_shared", te->pch_shared, "srcs", srcs);
		/* An extension of another kind: decided per toolkit (only then, so that torch
		 * plans read as before). */
		if (!te->torch)
			json_object_set_new(eo, "toolkit", json_integer((json_int_t)te->toolkit));
		/* Only for a cross torch, so that every other plan reads as before. */
		if (te->platform)
			json_object_set_new(eo, "platform", json_string(te->platform));
		json_array_append_new(exts, eo);
	}
	return json_pack("{s:b, s:o, s:b, s:o, s:o}", "kernels_use_torch", tp->kernels_use_torch,
	                 "kernels_why", jstr(tp->kernels_why), "kernels_pyfree", tp->kernels_pyfree,
	                 "standins", jstr(tp->standins), "exts", exts);
}

/* ---- the matrix, as `cuwheel plan` explains it ---- */

static json_t *arch_names(struct arena *a, const struct toolkit_plan *tp)
{
	json_t *archs = json_array();
	for (size_t k = 0; k < tp->n_archs; k++) {
		json_array_append_new(archs, json_string(cuda_arch_name(a, &tp->archs[k], false)));
		if (tp->archs[k].ptx)
			json_array_append_new(archs,
			                      json_string(cuda_arch_name(a, &tp->archs[k], true)));
	}
	return archs;
}

/* Every toolkit of the matrix: found or not, its targets and the archs it dropped. */
static json_t *matrix_toolkit_json(struct arena *a, const struct toolkit_plan *tp)
{
	const struct toolkit *tk = tp->tk;
	json_t *hc = json_null();
	if (tk)
		hc = json_pack("{s:o, s:o, s:i, s:b, s:o}", "cxx", jstr(tk->host.cxx), "version",
		               jstr(tk->host.version), "max_gcc", tk->host.max_gcc, "ccbin",
		               tk->host.ccbin, "error", jstr(tk->host.error));
	json_t *dropped = json_array();
	for (size_t k = 0; k < tp->n_dropped; k++)
		json_array_append_new(dropped, json_pack("{s:s, s:s}", "arch",
		                                         cuda_arch_name(a, &tp->dropped[k].arch,
		                                                        tp->dropped[k].arch.ptx),
		                                         "reason", tp->dropped[k].why));
	return json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:o}", "cuda", tp->cuda,
	                 "found", tk != NULL, "root", jstr(tk ? tk->root : NULL), "nvcc_version",
	                 jstr(tk ? tk->version : NULL), "host_compiler", hc, "targets",
	                 arch_names(a, tp), "dropped", dropped, "used", tp->used, "provisionable",
	                 tp->provisionable, "platform", jstr(tp->platform));
}

/* Every cell of the matrix: selected or not (and by what), buildable here or why not. */
static json_t *matrix_cell_json(const struct cell *c)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:s, s:b, s:s, s:s, s:o, s:s, s:s, s:b, s:o, s:b, "
	                 "s:o, s:o}",
	                 "id", c->id, "python", c->python, "cuda", c->cuda, "torch", jstr(c->torch),
	                 "platform", c->platform, "abi3", c->abi3, "python_tag", c->py_tag,
	                 "abi_tag", c->abi_tag, "local", jstr(c->local), "version", c->version,
	                 "wheel", c->wheel, "selected", c->selected, "unselected_by",
	                 jstr(c->unselected_by), "buildable", c->buildable, "reason",
	                 jstr(c->why_not), "interpreter", jstr(c->py ? c->py->path : NULL));
}

static json_t *matrix_json(const struct plan *p)
{
	struct arena a = {0};
	const struct config *cfg = p->cfg;
	json_t *m = json_pack("{s:s, s:s, s:s, s:o}", "project", cfg->project.name, "version",
	                      cfg->project.version, "host_platform", p->host_platform, "archs",
	                      jstr(cfg->kernels.archs_text));
	if (cfg->config_file) { /* a config beside the project: where each field came from */
		json_object_set_new(m, "sdist", jstr(cfg->sdist));
		json_t *mo = json_object();
		for (size_t i = 0; i < cfg->meta_origin.n; i++)
			json_object_set_new(mo, cfg->meta_origin.v[i].key,
			                    json_string(cfg->meta_origin.v[i].value));
		json_object_set_new(m, "metadata_origin", mo);
	}
	json_t *tks = json_array(), *cells = json_array();
	for (size_t i = 0; i < p->n_toolkits; i++)
		json_array_append_new(tks, matrix_toolkit_json(&a, &p->toolkits[i]));
	for (size_t i = 0; i < p->n_cells; i++)
		json_array_append_new(cells, matrix_cell_json(&p->cells[i]));
	json_object_set_new(m, "toolkits", tks);
	json_object_set_new(m, "cells", cells);
	json_object_set_new(m, "selected", json_integer((json_int_t)p->n_selected));
	json_object_set_new(m, "buildable", json_integer((json_int_t)p->n_buildable));
	arena_free(&a);
	return m;
}

/* r as the plan document; json_decref it. */
static json_t *plan_json(const struct graph_plan *r)
{
	const struct plan *plan = r->plan;
	/* Only what the graph holds: the used toolkits and the selected, buildable cells. */
	json_t *toolkits = json_array();
	size_t *index = calloc(plan->n_toolkits + 1, sizeof(*index));
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		if (!plan->toolkits[t].used || !plan->toolkits[t].tk)
			continue;
		index[t] = json_array_size(toolkits);
		json_array_append_new(toolkits, toolkit_json(r, t));
	}
	json_t *cells = json_array();
	for (size_t i = 0; i < plan->n_cells; i++)
		if (plan->cells[i].selected && plan->cells[i].buildable)
			json_array_append_new(cells,
			                      cell_json(r, i, index[plan->cells[i].toolkit]));
	free(index);
	const struct build_opts *o = &r->o;
	json_t *doc =
	    json_pack("{s:i, s:{s:i, s:o, s:o, s:b, s:b}, s:s, s:s, s:s, s:s, s:i, s:i, s:o, "
	              "s:o, s:o, s:o, s:o, s:o}",
	              "format", BUILDGRAPH_PLAN_FORMAT, "opts", "jobs", o->jobs, "ccache",
	              jstr(o->ccache), "cuwheel", jstr(o->cuwheel), "run_tests", o->run_tests,
	              "imported_archives", o->imported_archives, "build_dir", r->build_dir, "proj",
	              r->proj, "cc", r->cc, "cxx", r->cxx, "ncpu", r->ncpu, "nvcc_threads",
	              r->nvcc_threads, "config", config_json(plan->cfg), "toolkits", toolkits,
	              "cells", cells, "torch_plan", torchplan_json(&r->tp, plan->cfg),
	              "package_files", jstrv(&r->pkgfiles), "matrix", matrix_json(plan));
	/* Only where kernels compile with device line info at fixed paths: no other plan
	 * changes. */
	if (doc && o->bwrap)
		json_object_set_new(json_object_get(doc, "opts"), "bwrap", json_string(o->bwrap));
	return doc;
}

char *buildgraph_plan_text(struct arena *a, struct diag *d, const struct graph_plan *r)
{
	json_t *doc = plan_json(r);
	const char *file = os_join(a, r->build_dir, BUILDGRAPH_PLAN_JSON);
	/* What build.ninja cannot express is refused, named, before anything is rendered. */
	if (!doc) { /* jansson refused a string: a NULL where one must be, or not UTF-8 */
		diag_path(d, DIAG_ERROR, file, "cannot make the plan document");
		return NULL;
	}
	if (!buildgraph_plan_check(a, d, file, doc)) {
		json_decref(doc);
		return NULL;
	}
	char *json = json_dump_text(a, doc, JSON_INDENT(1));
	json_decref(doc);
	if (!json) {
		diag_path(d, DIAG_ERROR, file, "cannot serialise the resolved plan");
		return NULL;
	}
	return arena_printf(a, "%s\n", json);
}

/* ---- what build.ninja cannot express ---- */

/* The name of a field for a message: the environment variable a top-level one comes from. */
static const char *field_name(struct arena *a, const char *path)
{
	if (!strcmp(path, "$.cc"))
		return "$.cc (CC from the environment)";
	if (!strcmp(path, "$.cxx"))
		return "$.cxx (CXX from the environment)";
	return arena_strdup(a, path);
}

static bool check_text(struct arena *a, struct diag *d, const char *file, json_t *v,
                       const char *path)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		const char *why = strlen(s) != n    ? "a NUL byte"
		                  : strchr(s, '\n') ? "a line break"
		                  : strchr(s, '\r') ? "a carriage return"
		                                    : NULL;
		if (why)
			diag_path(d, DIAG_ERROR, file,
			          "%s holds %s, which build.ninja cannot express: '%s'",
			          field_name(a, path), why, s);
		return !why;
	}
	bool ok = true;
	if (json_is_object(v)) {
		const char *k;
		json_t *m;
		json_object_foreach(v, k, m)
		{
			/* The matrix is shown, not rendered: its reasons may quote a probe's lines.
			 */
			if (strcmp(path, "$") != 0 || strcmp(k, "matrix") != 0)
				ok &= check_text(a, d, file, m, arena_printf(a, "%s.%s", path, k));
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *m;
		json_array_foreach(v, i, m) ok &=
		    check_text(a, d, file, m, arena_printf(a, "%s[%zu]", path, i));
	}
	return ok;
}

bool buildgraph_plan_check(struct arena *a, struct diag *d, const char *file, json_t *doc)
{
	return check_text(a, d, file, doc, "$");
}
