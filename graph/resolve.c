/* resolve.c: everything the graph needs that is not in the plan, found once before it is
 * rendered: the build dir, the compilers and CPUs, the preprocessor's torch decisions (and the
 * torch links they name), torch's flags per cell, pybind11's headers and the packages' files.
 * The renderer (buildgraph.c) reads the result and nothing else. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-sys.h"
#include "base/path.h"
#include "graph/buildgraph.h"
#include "standards/ninja.h"
#include "standards/toml.h"
#include "toolchain/toolchain.h"

struct res {
	struct arena *a;
	struct diag *d;
	const struct plan *plan;
	const struct config *cfg;
	struct graph_plan *r;
	bool failed; /* an error was reported: no graph */
};

/* The value of name in the config's environment, or dflt when it is unset or empty. */
static const char *env_or(const struct config *cfg, const char *name, const char *dflt)
{
	const char *v = env_nonempty(cfg->env, name);
	return v ? v : dflt;
}

/* The interpreter whose torch the kernels of toolkit tp are built against when they include
 * torch headers (uses-torch), else NULL. One archive per toolkit: its cells must share one
 * torch version, or an error is reported. */
static const struct interp *kernels_torch(struct res *g, const struct toolkit_plan *tp)
{
	if (!g->r->tp.kernels_use_torch)
		return NULL;
	size_t t = (size_t)(tp - g->plan->toolkits);
	const struct interp *py = NULL;
	for (size_t i = 0; i < g->plan->n_cells; i++) {
		const struct cell *c = &g->plan->cells[i];
		if (!c->selected || !c->buildable || c->toolkit != t || !c->py->torch.present)
			continue;
		if (!py) {
			py = c->py;
		} else if (strcmp(py->torch.version, c->py->torch.version) != 0) {
			diag_path(
			    g->d, DIAG_ERROR, g->cfg->pyproject,
			    "the kernels include torch headers, so CUDA %s needs one archive per "
			    "torch, which is not supported yet: torch %s and %s; build one torch "
			    "at a time (--only '*-pt211-*') or keep torch headers out of the "
			    "kernels",
			    tp->cuda, py->torch.version, c->py->torch.version);
			g->failed = true;
			break;
		}
	}
	return py;
}

/* True when every extension has one TORCH_EXTENSION_NAME (its module's last component). */
static bool kernels_one_name(const struct config *cfg)
{
	for (size_t e = 1; e < cfg->n_extensions; e++)
		if (strcmp(torchflags_extension_name(cfg->extensions[e].module),
		           torchflags_extension_name(cfg->extensions[0].module)) != 0)
			return false;
	return true;
}

/* With several module names the kernel archive has no TORCH_EXTENSION_NAME (one object linked
 * into every extension takes only the macros that are the same for all of them): a kernel
 * source that names the macro is refused at its first use, with the way to compile it per
 * extension. Reads each kernel source itself (a use in a header it includes is left to the
 * compiler's error). */
static void kernels_name_refusals(struct res *g)
{
	const struct config *cfg = g->cfg;
	static const char macro[] = "TORCH_EXTENSION_NAME";
	for (size_t i = 0; !kernels_one_name(cfg) && i < cfg->kernels.files.n; i++) {
		const char *rel = cfg->kernels.files.v[i];
		struct source src;
		struct diag quiet = {0};
		if (!os_read_file(g->a, &quiet, os_join(g->a, cfg->project_dir, rel), &src))
			continue; /* the compile names an unreadable source */
		src.path = rel;
		const char *p = src.text, *end = src.text + src.len;
		for (; (p = strstr(p, macro)) != NULL && p < end; p += sizeof(macro) - 1) {
			bool left = p > src.text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
			char r = p[sizeof(macro) - 1];
			if (!left && !(isalnum((unsigned char)r) || r == '_'))
				break;
		}
		if (!p || p >= end)
			continue;
		int line = 1, col = 1;
		for (const char *q = src.text; q < p; q++)
			*q == '\n' ? (line++, col = 1) : col++;
		diag_at(
		    g->d, DIAG_ERROR, &src, line, col,
		    "kernel source uses TORCH_EXTENSION_NAME, which the kernel archive does not "
		    "define: it is linked into every extension, and their names differ (%s, %s)",
		    cfg->extensions[0].module, cfg->extensions[1].module);
		diag_msg(
		    g->d, DIAG_HINT,
		    "list %s among the sources of the extension it belongs to (compiled there, "
		    "per extension, with that extension's name)",
		    rel);
		g->failed = true;
	}
}

/* torch's flags for the kernels of toolkit tp built against tpy's torch (uses-torch), into
 * ktf: its include dirs through build_dir/torch/<version>-<abi>, and its post flags less the
 * -std= that the kernels' nvcc-flags set; *cpp_post: the post flags for .cpp kernels, whose
 * -std= is host-flags'. */
static void kernels_torch_flags(struct res *g, const struct toolkit_plan *tp,
                                const struct interp *tpy, struct torch_flags *ktf,
                                struct strv *cpp_post)
{
	const struct kernels_cfg *k = &g->cfg->kernels;
	struct extension_cfg kx = {.module = g->cfg->n_extensions ? g->cfg->extensions[0].module
	                                                          : "kernels",
	                           .kind = EXT_TORCH};
	const char *err = NULL;
	if (!torchflags_for(g->a, &kx, tpy, tp->tk, ktf, &err)) {
		diag_path(g->d, DIAG_ERROR, g->cfg->pyproject, "kernels: %s", err);
		g->failed = true;
	}
	/* The archive is linked into every extension: it takes only the macros that are the same
	 * for all of them, so no TORCH_EXTENSION_NAME when their module names differ. */
	if (!kernels_one_name(g->cfg)) {
		struct strv kept = {0};
		for (size_t f = 0; f < ktf->post.n; f++)
			if (strncmp(ktf->post.v[f], "-DTORCH_EXTENSION_NAME=", 23) != 0)
				strv_push(g->a, &kept, ktf->post.v[f]);
		ktf->post = kept;
	}
	/* torch's headers through build_dir/torch/<version>-<abi>: the commands (and so
	 * the archive) do not depend on which venv provided that torch. */
	const char *link = torchscan_link(&g->r->tp.scan, &tpy->torch);
	if (!link)
		g->failed = true;
	struct strv inc = {0};
	torchplan_relink(g->a, &ktf->incs, &tpy->torch, link, &inc);
	ktf->incs = inc;
	/* The kernels' own -std= (nvcc-flags) stands, as BuildExtension's would. */
	struct strv post = {0};
	bool own_std = toolchain_nvcc_own_std(&k->nvcc_flags);
	for (size_t f = 0; f < ktf->post.n; f++)
		if (!own_std || strncmp(ktf->post.v[f], "-std=", 5) != 0)
			strv_push(g->a, &post, ktf->post.v[f]);
	*cpp_post = ktf->post;
	ktf->post = post;
}

/* True when a pybind11 extension can find pybind11's headers in this cell: torch's (torch ships
 * them, and its include dirs come first), the interpreter's pybind11 package, or one of the
 * extension's own include dirs (a vendored copy, a submodule). */
static bool pybind11_found(struct res *g, const struct config *cfg, const struct extension_cfg *x,
                           const struct interp *py)
{
	if (py->torch.present || py->pybind11.include_dir)
		return true;
	for (size_t i = 0; i < x->include_dirs.n; i++) {
		const char *d = x->include_dirs.v[i];
		const char *dir = d[0] == '/' ? d : os_join(g->a, cfg->project_dir, d);
		if (os_exists(os_join(g->a, dir, "pybind11/pybind11.h")))
			return true;
	}
	return false;
}
/* The compile flags cpp_extension passes to the C++ kinds of extension (torch, pybind11), read
 * from cell c's interpreter's torch, into tf; reports flags it cannot read and a pybind11
 * extension whose headers this cell cannot find. */
static void ext_prepare(struct res *g, const struct cell *c, const struct extension_cfg *x,
                        struct torch_flags *tf)
{
	const struct config *cfg = g->cfg;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	bool cxx_kind = x->kind == EXT_TORCH || x->kind == EXT_PYBIND11;
	const char *tferr = NULL;
	if (cxx_kind && !torchflags_for(g->a, x, c->py, tp->tk, tf, &tferr)) {
		diag_path(g->d, DIAG_ERROR, cfg->pyproject, "%s: %s", c->id, tferr);
		g->failed = true;
	}
	if (x->kind != EXT_PYBIND11 || pybind11_found(g, cfg, x, c->py))
		return;
	const struct toml_value *kind = toml_get(x->where, "kind");
	diag_at(g->d, DIAG_ERROR, &cfg->src, kind ? kind->line : 0, kind ? kind->col : 0,
	        "%s: extension %s is of kind pybind11, but Python %s (%s) cannot "
	        "import pybind11 (%s) and no include-dirs entry holds "
	        "pybind11/pybind11.h",
	        c->id, x->module, c->py->version, c->py->path,
	        c->py->pybind11.error ? c->py->pybind11.error : "no answer");
	diag_msg(g->d, DIAG_HINT,
	         "install pybind11 in that interpreter (%s -m pip install pybind11), or "
	         "name the directory that holds pybind11/ in the extension's "
	         "include-dirs",
	         c->py->path);
	g->failed = true;
}

/* Appends every file under package folder pkg (project-relative) to files: each is an input
 * of the stage step, so editing Python code restages. */
static void package_files(struct res *g, const char *pkg, struct strv *files)
{
	struct arena *a = g->a;
	const struct config *cfg = g->cfg;
	struct strv stack = {0};
	strv_push(a, &stack, pkg);
	while (stack.n) {
		const char *rel = stack.v[--stack.n];
		struct strv names = {0};
		if (!os_list_dir(a, os_join(a, cfg->project_dir, rel), &names))
			continue;
		for (size_t k = 0; k < names.n; k++) {
			if (!strcmp(names.v[k], "__pycache__") ||
			    (names.v[k][0] == '.' && !cfg->ship_hidden))
				continue;
			char *r = os_join(a, rel, names.v[k]);
			if (os_is_dir(os_join(a, cfg->project_dir, r)))
				strv_push(a, &stack, r);
			else
				strv_push(a, files, r);
		}
	}
}

/* The kernels' torch of every toolkit whose archive the graph builds. */
static void resolve_kernels(struct res *g)
{
	const struct plan *plan = g->plan;
	g->r->ktorch = arena_calloc(g->a, plan->n_toolkits + 1, sizeof(*g->r->ktorch));
	bool torch = false;
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		if (!plan->toolkits[t].used || g->cfg->kernels.files.n == 0)
			continue;
		struct graph_ktorch *kt = &g->r->ktorch[t];
		kt->py = kernels_torch(g, &plan->toolkits[t]);
		if (kt->py)
			kernels_torch_flags(g, &plan->toolkits[t], kt->py, &kt->tf, &kt->cpp_post);
		torch |= kt->py != NULL;
	}
	if (torch)
		kernels_name_refusals(g);
}

/* The flags of every C++-kind extension of every cell the graph builds, and the packages'
 * files. */
static void resolve_cells(struct res *g)
{
	const struct plan *plan = g->plan;
	const struct config *cfg = g->cfg;
	size_t n_ext = cfg->n_extensions;
	g->r->ext_flags = arena_calloc(g->a, plan->n_cells * n_ext + 1, sizeof(*g->r->ext_flags));
	for (size_t i = 0; i < plan->n_cells; i++) {
		const struct cell *c = &plan->cells[i];
		if (!c->selected || !c->buildable)
			continue;
		for (size_t e = 0; e < n_ext; e++)
			ext_prepare(g, c, &cfg->extensions[e], &g->r->ext_flags[i * n_ext + e]);
	}
	for (size_t p = 0; p < cfg->packages.n; p++)
		package_files(g, cfg->packages.v[p], &g->r->pkgfiles);
	for (size_t f = 0; f < cfg->python_files.n; f++)
		strv_push(g->a, &g->r->pkgfiles, cfg->python_files.v[f].value);
}

/* Paths found rather than written (toolkits, interpreters, the directories) reach build.ninja
 * too: one with a line break would add a line to it. */
static bool paths_ok(struct arena *a, struct diag *d, const struct plan *plan, const char *bdir)
{
	const struct config *cfg = plan->cfg;
	struct strv paths = {0};
	strv_push(a, &paths, cfg->project_dir);
	strv_push(a, &paths, bdir);
	strv_push(a, &paths, cfg->dist_dir);
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		const struct toolkit *tk = plan->toolkits[t].tk;
		if (plan->toolkits[t].used && tk) {
			strv_push(a, &paths, tk->nvcc);
			strv_push(a, &paths, tk->include_dir);
			strv_push(a, &paths, tk->lib_dir);
		}
	}
	for (size_t i = 0; i < plan->n_cells; i++)
		if (plan->cells[i].selected && plan->cells[i].buildable)
			strv_push(a, &paths, plan->cells[i].py->include_dir);
	for (size_t i = 0; i < paths.n; i++) {
		if (paths.v[i] && !ninja_path_ok(paths.v[i])) {
			diag_path(d, DIAG_ERROR, paths.v[i],
			          "a path with a newline cannot be built");
			return false;
		}
	}
	return true;
}

/* The absolute path of the build dir with no link in it, as os_realpath gives it once the
 * dir exists; one not made yet (`cuwheel plan`) is its nearest existing parent's, resolved,
 * and the rest. */
static const char *build_dir_path(struct arena *a, const char *dir)
{
	char *abs = os_abspath(a, dir);
	for (size_t n = strlen(abs); n > 1 && abs[n - 1] == '/'; n--)
		abs[n - 1] = '\0';
	char *real = os_realpath(a, abs);
	if (real)
		return real;
	const char *slash = strrchr(abs, '/');
	if (!slash || slash == abs)
		return abs;
	const char *parent = build_dir_path(a, arena_strndup(a, abs, (size_t)(slash - abs)));
	return os_join(a, parent, slash + 1);
}

bool buildgraph_resolve(struct arena *a, struct diag *d, const struct plan *plan,
                        const struct build_opts *o, struct graph_plan *r)
{
	memset(r, 0, sizeof(*r));
	const struct config *cfg = plan->cfg;
	r->plan = plan;
	r->o = *o;
	if (!o->no_write && !os_mkdir_p(d, cfg->build_dir))
		return false;
	r->build_dir = build_dir_path(a, cfg->build_dir);
	r->proj = path_relative(a, r->build_dir, cfg->project_dir);
	/* nvcc sees the project through this path (-I, -ffile-prefix-map): a build dir outside
	 * the project puts the project's own path there. */
	const char *why =
	    cfg->kernels.files.n ? ninja_arg_refusal(r->proj, ARG_NVCC_INCLUDE) : NULL;
	if (!why && cfg->kernels.files.n)
		why = ninja_arg_refusal(r->proj, ARG_NVCC_HOST);
	if (why) {
		diag_path(d, DIAG_ERROR, cfg->project_dir,
		          "the project directory, seen from the build directory as '%s', holds %s",
		          r->proj, why);
		diag_msg(d, DIAG_HINT, "keep build-dir inside the project");
		return false;
	}
	r->cc = env_or(cfg, "CC", "cc");
	r->cxx = env_or(cfg, "CXX", "c++");
	r->ncpu = os_cpu_count();
	/* CUWHEEL_NVCC_THREADS overrides nvcc --threads (benchmarks sweep it; big machines raise
	 * it). */
	const char *forced = env_value(cfg->env, "CUWHEEL_NVCC_THREADS");
	if (forced && atoi(forced) >= 1 && atoi(forced) <= 64)
		r->nvcc_threads = atoi(forced);
	if (!paths_ok(a, d, plan, r->build_dir))
		return false;
	enum proof_mode proofs = r->o.guess_kernels   ? PROOF_GUESS
	                         : r->o.record_proofs ? PROOF_RECORD
	                         : r->o.defer_proofs  ? PROOF_DEFER
	                                              : PROOF_RUN;
	if (!torchplan_make(a, d, plan, r->build_dir, r->cxx, r->cc,
	                    r->o.jobs > 0 ? r->o.jobs : r->ncpu, proofs, r->o.bwrap, r->o.cuwheel,
	                    &r->tp))
		return false;
	/* The proof's objects are copied, not compiled again, unless the graph is only shown
	 * (--dry-run: no path into the scan cache). */
	if (r->o.no_proof_objects)
		for (size_t e = 0; e < r->tp.n_exts; e++)
			for (size_t i = 0; i < cfg->extensions[r->tp.exts[e].ext].files.n; i++)
				r->tp.exts[e].srcs[i].obj = r->tp.exts[e].srcs[i].obj_for = NULL;
	struct res g = {.a = a, .d = d, .plan = plan, .cfg = cfg, .r = r};
	resolve_kernels(&g);
	if (!r->o.guess_kernels)
		resolve_cells(&g);
	return !g.failed;
}
