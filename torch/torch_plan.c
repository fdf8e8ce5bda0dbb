/* torch_plan.c: the torch decisions of a plan. The preprocessor runs once per source and torch
 * version, with the flags of the first selected cell of that torch (the representative), from
 * the build dir as ninja will; its answers are cached in build_dir/scan. */
#include "torch/torch_plan.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/path.h"
#include "base/sandbox.h"
#include "base/strbuf.h"
#include "kernels/kernels_key.h"
#include "standards/cuda_arch.h"
#include "standards/ninja.h"
#include "toolchain/toolchain.h"
#include "torch/module_guess.h"
#include "torch/plainflags.h"
#include "torch/torchflags.h"

static bool is_cu(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && !strcmp(dot, ".cu");
}

static bool is_c(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && !strcmp(dot, ".c");
}

/* CPython up to 3.11 passes -fwrapv to extensions, from 3.12 -fno-strict-overflow. */
static bool py_wrapv(const struct interp *py)
{
	return py->major == 3 && py->minor < 12;
}

/* The same from a cell's Python version as the config writes it ("3.11", "3.13t"), so that
 * cells whose interpreter this machine lacks count too. */
static bool version_wrapv(const char *python)
{
	int major = 0, minor = 0;
	return sscanf(python, "%d.%d", &major, &minor) == 2 && major == 3 && minor < 12;
}

/* The optimisation and code-affecting flags setuptools passes to every C++ source (CPython's
 * sysconfig OPT less -g and the warnings): "-O3 -DNDEBUG -fwrapv". */
static void torchplan_peer_opt_flags(struct arena *a, struct strv *out)
{
	strv_push(a, out, "-O3");
	strv_push(a, out, "-DNDEBUG");
}

void torchplan_relink(struct arena *a, const struct strv *flags, const struct torch_info *ti,
                      const char *link, struct strv *out)
{
	struct scan_ctx s = {.a = a};
	struct strv mapped = {0};
	torchscan_link_includes(&s, ti, link, &mapped);
	for (size_t i = 0; i < flags->n; i++) {
		const char *f = flags->v[i];
		size_t k = 0;
		if (link && !strncmp(f, "-I", 2))
			while (k < ti->include_dirs.n && strcmp(f + 2, ti->include_dirs.v[k]) != 0)
				k++;
		if (link && !strncmp(f, "-I", 2) && k < ti->include_dirs.n)
			strv_push(a, out, arena_printf(a, "-I%s", mapped.v[k]));
		else
			strv_push(a, out, f);
	}
}

/* The middle of BuildExtension's order for extension x in cell c: the project's defines and
 * include dirs, torch's include dirs, CUDA's (tk; none when NULL) and, per cell, Python's. */
static void ext_include_flags(struct arena *a, const struct extension_cfg *x, const struct cell *c,
                              const struct toolkit *tk, const struct torch_flags *tf,
                              const char *proj, const char *link, enum bind_mode mode,
                              struct strv *out)
{
	for (size_t i = 0; i < x->defines.n; i++)
		strv_push(a, out, arena_printf(a, "-D%s", x->defines.v[i]));
	for (size_t i = 0; i < x->include_dirs.n; i++)
		strv_push(a, out,
		          arena_printf(a, "-I%s", path_under(a, proj, x->include_dirs.v[i])));
	/* torch's headers through link in every mode: their paths reach the object (__FILE__
	 * in torch's checks), and the venv that provided torch must not. */
	torchplan_relink(a, &tf->incs, &c->py->torch, link, out);
	if (tk)
		strv_push(a, out, arena_printf(a, "-I%s", tk->include_dir));
	if (mode == BIND_CELL || mode == BIND_CELL_PCH) {
		strv_push(a, out, "-isystem");
		strv_push(a, out, c->py->include_dir);
	}
}

void torchplan_binding_flags(struct arena *a, const struct config *cfg,
                             const struct extension_cfg *x, const struct cell *c,
                             const struct toolkit *tk, const struct torch_flags *tf,
                             const char *proj, const char *link, enum bind_mode mode,
                             struct strv *out)
{
	(void)cfg;
	/* What setuptools gives every source of a BuildExtension (CPython's sysconfig CFLAGS:
	 * -O3 -DNDEBUG, and -fwrapv up to 3.11, -fno-strict-overflow from 3.12, which implies
	 * it); -g and the warnings are left out. A shared object is built once for every
	 * Python: it takes the stricter of the two. */
	torchplan_peer_opt_flags(a, out);
	bool wrapv = mode != BIND_SHARED && c->py && py_wrapv(c->py);
	strv_push(a, out, wrapv ? "-fwrapv" : "-fno-strict-overflow");
	strv_push(a, out, "-fPIC");
	strv_push(a, out, "-fvisibility=hidden");
	strv_push(a, out, arena_printf(a, "-ffile-prefix-map=%s=.", proj));
	/* Then BuildExtension's order: the project's defines and include dirs, torch's, CUDA's
	 * and Python's include dirs, the project's cflags, and last the defines torch appends
	 * (and -std=c++17), so a project's -U or -D of one of them acts as it does there. */
	ext_include_flags(a, x, c, tk, tf, proj, link, mode, out);
	for (size_t i = 0; i < x->cflags.n; i++)
		strv_push(a, out, x->cflags.v[i]);
	for (size_t i = 0; i < tf->post.n; i++)
		strv_push(a, out, tf->post.v[i]);
}

/* The nvcc flags of extension x's own .cu sources: its nvcc-flags where it has them, else the
 * kernels'. */
static const struct strv *ext_nvcc_flags(const struct config *cfg, const struct extension_cfg *x)
{
	return x->own_nvcc_flags ? &x->nvcc_flags : &cfg->kernels.nvcc_flags;
}

void torchplan_cu_flags(struct arena *a, const struct config *cfg, const struct extension_cfg *x,
                        const struct cell *c, const struct torch_flags *tf, const char *proj,
                        const char *link, enum bind_mode mode, struct strv *out)
{
	if (x->kind != EXT_TORCH) {
		plainflags_cu(a, cfg, x, c, proj, mode == BIND_SHARED, out);
		return;
	}
	const struct strv *nv = ext_nvcc_flags(cfg, x);
	/* nvcc finds CUDA's headers itself: no toolkit include dir. */
	ext_include_flags(a, x, c, NULL, tf, proj, link, mode, out);
	for (size_t i = 0; i < tf->nvcc_common.n; i++)
		strv_push(a, out, tf->nvcc_common.v[i]);
	bool own_std = toolchain_nvcc_own_std(nv);
	for (size_t i = 0; i < nv->n; i++)
		strv_push(a, out, nv->v[i]);
	for (size_t i = 0; i < tf->post.n; i++)
		if (!own_std || strncmp(tf->post.v[i], "-std=", 5) != 0)
			strv_push(a, out, tf->post.v[i]);
}

static bool line_info_in(const struct strv *nvcc_flags)
{
	static const char *const li[] = {"-lineinfo", "--generate-line-info", "-G",
	                                 "--device-debug"};
	for (size_t i = 0; i < nvcc_flags->n; i++)
		for (size_t j = 0; j < sizeof(li) / sizeof(*li); j++)
			if (!strcmp(nvcc_flags->v[i], li[j]))
				return true;
	return false;
}

bool torchplan_line_info(const struct kernels_cfg *k)
{
	return line_info_in(&k->nvcc_flags);
}

bool torchplan_ext_line_info(const struct config *cfg, const struct extension_cfg *x)
{
	return line_info_in(ext_nvcc_flags(cfg, x));
}

const char *torchplan_cu_proj(const struct config *cfg, const struct extension_cfg *x,
                              const char *bwrap, const char *rel)
{
	if (!torchplan_ext_line_info(cfg, x))
		return rel;
	return bwrap ? SANDBOX_CANON_PROJECT : cfg->project_dir;
}

/* Appends `cuwheel internal canon --bwrap B --project P --build-dir D --nvcc N --`: what runs
 * a compile of nvcc N with the project P and the build dir D (absolute) at fixed paths. */
static void canon_argv(struct arena *a, const char *cuwheel, const char *bwrap, const char *project,
                       const char *build_dir, const char *nvcc, struct strv *out)
{
	const char *const argv[] = {cuwheel,   "internal",  "canon", "--bwrap",
	                            bwrap,     "--project", project, "--build-dir",
	                            build_dir, "--nvcc",    nvcc,    "--"};
	for (size_t i = 0; i < sizeof(argv) / sizeof(*argv); i++)
		strv_push(a, out, argv[i]);
}

void torchplan_shared_flags(struct arena *a, const struct config *cfg,
                            const struct extension_cfg *x, const struct cell *c,
                            const struct toolkit *tk, const struct torch_flags *tf,
                            const char *proj, const char *link, const char *standins, bool cu,
                            struct strv *out)
{
	if (standins)
		strv_push(a, out, arena_printf(a, "-I%s", standins));
	if (cu)
		torchplan_cu_flags(a, cfg, x, c, tf, proj, link, BIND_SHARED, out);
	else
		torchplan_binding_flags(a, cfg, x, c, tk, tf, proj, link, BIND_SHARED, out);
}

void torchplan_compile_argv(struct arena *a, const struct toolkit_plan *tkp, const char *cxx,
                            const char *proj, const char *name, bool cu, const struct strv *flags,
                            struct strv *out)
{
	if (!cu) {
		strv_push(a, out, torchplan_cxx(tkp, cxx));
	} else {
		const struct toolkit *tk = tkp->tk;
		strv_push(a, out, tk->nvcc);
		/* The project's own -O level, when it is another, is the one nvcc sees. */
		if (!toolchain_nvcc_own_opt(flags))
			strv_push(a, out, "-O3");
		strv_push(a, out, "-Xcompiler=-fPIC");
		strv_push(a, out, "-Xcompiler=-fvisibility=hidden");
		strv_push(a, out,
		          toolchain_xcompiler(a, arena_printf(a, "-ffile-prefix-map=%s=.", proj)));
		/* One nvcc thread per arch (at most 16): a torch .cu is often the build's longest
		 * step (the proof's compile is one); the object's bytes do not depend on it, and
		 * the command does not depend on the machine. */
		int threads = tkp->n_archs < 16 ? (int)tkp->n_archs : 16;
		toolchain_nvcc_args(a, tk->nvcc_lacks, tk->host.ccbin ? tk->host.cxx : NULL, name,
		                    threads > 1 ? threads : 1, out);
		/* A cross toolkit's nvcc reads the host's headers (the same for both targets). */
		if (tk->target_dir) {
			strv_push(a, out, "-target-dir");
			strv_push(a, out, tk->target_dir);
		}
		/* " --generate-code=... --generate-code=...": one argument each. */
		char *archs = cuda_arch_nvcc_flags(a, tkp->archs, tkp->n_archs, true);
		char *save = NULL;
		for (char *p = strtok_r(archs, " ", &save); p; p = strtok_r(NULL, " ", &save))
			strv_push(a, out, p);
	}
	for (size_t i = 0; i < flags->n; i++)
		strv_push(a, out, flags->v[i]);
}

char *torchplan_shared_key(struct arena *a, const struct toolkit_plan *tkp, const char *cxx,
                           const struct strv *flags)
{
	struct strbuf sb = {0};
	sb_printf(&sb, "shared v1\n%s\n%s\n", tkp->tk->version, torchplan_cxx(tkp, cxx));
	for (size_t i = 0; i < flags->n; i++)
		sb_printf(&sb, "%s\x1f", flags->v[i]);
	char *key = kernels_key_digest(a, &sb);
	sb_release(&sb);
	return key;
}

const char *torchplan_shared_obj(struct arena *a, const struct toolkit_plan *tkp, const char *cxx,
                                 const char *module, const char *name, bool cu,
                                 const struct strv *flags)
{
	const char *key = torchplan_shared_key(a, tkp, cxx, flags);
	const char *dir =
	    arena_printf(a, "shared/cu%d%d-%s/obj/%s", tkp->tk->major, tkp->tk->minor, key, module);
	if (!cu)
		return arena_printf(a, "%s/%s.o", dir, name);
	/* Each nvcc object in its own directory: -objtemp puts nvcc's temporaries there. */
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	return arena_printf(a, "%s/%s/%s.o", dir, name, base);
}

const struct torch_plan_ext *torchplan_find(const struct torch_plan *tp, size_t ext,
                                            const struct cell *c)
{
	for (size_t i = 0; i < tp->n_exts; i++)
		if (tp->exts[i].ext == ext && tp->exts[i].torch &&
		    !strcmp(tp->exts[i].torch, c->py->torch.version) &&
		    !tp->exts[i].platform == !c->py->torch.platform &&
		    (!c->py->torch.platform ||
		     !strcmp(tp->exts[i].platform, c->py->torch.platform)))
			return &tp->exts[i];
	return NULL;
}

const struct torch_plan_ext *torchplan_find_plain(const struct torch_plan *tp, size_t ext,
                                                  const struct cell *c)
{
	for (size_t i = 0; i < tp->n_exts; i++)
		if (tp->exts[i].ext == ext && !tp->exts[i].torch &&
		    tp->exts[i].toolkit == c->toolkit)
			return &tp->exts[i];
	return NULL;
}

const char *torchplan_cxx(const struct toolkit_plan *tkp, const char *cxx)
{
	return tkp && tkp->tk && tkp->tk->platform && tkp->tk->host.cxx ? tkp->tk->host.cxx : cxx;
}

static bool excluded(const struct extension_cfg *x, const char *src)
{
	for (size_t i = 0; i < x->pch_exclude.n; i++)
		if (fnmatch(x->pch_exclude.v[i], src, FNM_PATHNAME) == 0)
			return true;
	return false;
}

/* What plan says of a source that uses the PCH: which header, and why that one. */
static const char *pch_use_why(struct arena *a, bool shared, size_t min_k, size_t n_cells,
                               size_t n_sets)
{
	if (shared)
		return arena_printf(a,
		                    "torch/all.h, one .gch per flag set for %zu Pythons (%zu .gch)",
		                    n_cells, n_sets);
	if (min_k < 2)
		return "torch/extension.h, one .gch per Python "
		       "(no other Python of its flag set to share one)";
	return "torch/extension.h, one .gch per Python "
	       "(parsing torch/python.h in every source would cost more than a shared one saves)";
}

/* The compile of the Python-free proof for one source: without's flags, and only the
 * front end's work: -fsyntax-only, or for nvcc -cuda (cudafe++ and the device front end
 * parse every line, host and device) for the first arch of the toolkit. */
static void pyfree_compile(struct arena *a, const struct strv *without, bool cu,
                           const struct toolkit_plan *tkp, struct strv *out)
{
	for (size_t i = 0; i < without->n; i++)
		strv_push(a, out, without->v[i]);
	if (!cu) {
		strv_push(a, out, "-fsyntax-only");
		return;
	}
	strv_push(a, out, "-cuda");
	if (tkp->n_archs) {
		const struct arch *ar = &tkp->archs[0];
		strv_push(a, out,
		          ar->suffix ? arena_printf(a, "-arch=compute_%d%d%c", ar->major, ar->minor,
		                                    ar->suffix)
		                     : arena_printf(a, "-arch=compute_%d%d", ar->major, ar->minor));
	}
}

/* Copies argv with the stand-in dir first (after the compiler). */
static void with_standins(struct arena *a, const char *standins, const struct strv *argv,
                          struct strv *out)
{
	strv_push(a, out, argv->v[0]);
	strv_push(a, out, arena_printf(a, "-I%s", standins));
	for (size_t i = 1; i < argv->n; i++)
		strv_push(a, out, argv->v[i]);
}

/* The Python-free proof of one extension source that includes Python's headers (item 1 of
 * torch.md's "Python-free by proof"): with its cell flags against the shared flags with the
 * stand-ins first, and the shared compile itself (torchplan_compile_argv, as the graph runs
 * it), whose object the graph then copies instead of compiling the source again; a source
 * whose text defines the module is refused from that text alone (module_guess_file). proj:
 * the project as the compile names it. */
static bool ext_pyfree(struct torch_plan *tp, const struct plan *plan,
                       const struct extension_cfg *x, const struct cell *c,
                       const struct torch_flags *tf, const char *link, const char *proj,
                       const char *cproj, const struct strv *with, const char *src,
                       struct binding_decision *bd)
{
	struct arena *a = tp->scan.a;
	const struct config *cfg = plan->cfg;
	const struct toolkit_plan *tkp = &plan->toolkits[c->toolkit];
	if (x->python_free_off) {
		bd->pyfree = PYFREE_OFF;
		return true;
	}
	if (!tp->standins && !(tp->standins = torchscan_standins(&tp->scan, with)))
		return false;
	bool cu = is_cu(src);
	struct strv flags = {0}, bare = {0}, without = {0}, compile = {0};
	torchplan_shared_flags(a, cfg, x, c, tkp->tk, tf, proj, link, NULL, cu, &bare);
	/* A vendored pybind11 among the shared flags' dirs gets its stand-ins too. */
	strv_push(a, &without, with->v[0]);
	for (size_t i = 0; i < bare.n; i++)
		strv_push(a, &without, bare.v[i]);
	if (!torchscan_standins(&tp->scan, &without))
		return false;
	/* A source that defines the module fails the expansion check by construction (its
	 * PYBIND11_MODULE expands otherwise without pybind11's headers): refused here, so
	 * neither the -E without Python's headers (a preprocessing of all of torch's) nor the
	 * compile runs, in the prefill's passes too. The stand-ins above are made all the
	 * same: the plan is the one the proof would give. */
	struct module_use mu;
	if (module_guess_file(a, path_under(a, cfg->project_dir, src), &mu)) {
		bd->pyfree = PYFREE_MODULE;
		bd->pyfree_why = arena_printf(a,
		                              "%s:%zu:%zu: PYBIND11_MODULE defines the Python "
		                              "module here; its own text expands otherwise "
		                              "without Python's headers",
		                              src, mu.line, mu.col);
		return true;
	}
	torchplan_shared_flags(a, cfg, x, c, tkp->tk, tf, proj, link, tp->standins, cu, &flags);
	without.n = 0;
	strv_push(a, &without, with->v[0]);
	for (size_t i = 0; i < flags.n; i++)
		strv_push(a, &without, flags.v[i]);
	/* The build's own compile, where the graph compiles the source by its name (one that
	 * needs a stub to reach ninja or nvcc is proven by the front end alone); at fixed paths
	 * (cproj SANDBOX_CANON_PROJECT) as the graph runs it, through `cuwheel internal canon`. */
	bool object = !ninja_source_needs_stub(path_under(a, proj, src), cu);
	bool canon = object && strcmp(cproj, proj) != 0;
	const char *in = path_under(a, proj, src);
	if (canon) {
		flags.n = 0;
		torchplan_shared_flags(a, cfg, x, c, tkp->tk, tf, cproj, link, tp->standins, cu,
		                       &flags);
		canon_argv(a, tp->cuwheel, tp->bwrap, cfg->project_dir, tp->scan.build_dir,
		           tkp->tk->nvcc, &compile);
		in = path_under(a, cproj, src);
	}
	if (object)
		torchplan_compile_argv(a, tkp, tp->cxx, cproj, src, cu, &flags, &compile);
	else
		pyfree_compile(a, &without, cu, tkp, &compile);
	if (!torchscan_pyfree(&tp->scan, with, &without, &compile, object, path_under(a, proj, src),
	                      in, bd))
		return false;
	tp->tentative |= bd->tentative;
	if (bd->obj)
		bd->obj_for = torchplan_shared_obj(a, tkp, tp->cxx, x->module, src, cu, &flags);
	return true;
}

/* The flags torch adds to a kernel's compile when the kernels include torch headers, as the
 * archive's edges pass them (torch's nvcc defines for a .cu, then the defines torch appends,
 * -DTORCH_API_INCLUDE_EXTENSION_H among them, less -std), into out. NULL, or why they cannot
 * be known. */
static const char *kernel_torch_flags(struct arena *a, const struct config *cfg,
                                      const struct cell *rc, const struct toolkit_plan *tkp,
                                      bool cu, struct strv *out)
{
	struct extension_cfg kx = {
	    .module = cfg->n_extensions ? cfg->extensions[0].module : "kernels", .kind = EXT_TORCH};
	struct torch_flags tf;
	const char *err = NULL;
	if (!torchflags_for(a, &kx, rc->py, tkp->tk, &tf, &err))
		return err ? err : "torch's flags are unknown";
	if (cu)
		for (size_t i = 0; i < tf.nvcc_common.n; i++)
			strv_push(a, out, tf.nvcc_common.v[i]);
	for (size_t i = 0; i < tf.post.n; i++)
		if (strncmp(tf.post.v[i], "-std=", 5) != 0)
			strv_push(a, out, tf.post.v[i]);
	return NULL;
}

/* A kernel source that includes Python's headers (python): compiled once for every Python, so
 * only where proven Python-free (with the Python include dir of rc, the first selected cell of
 * its toolkit with a torch, against the stand-ins) and reported otherwise. av: its scan
 * command; the proof adds torch's nvcc flags, as the kernels get them. */
static bool kernel_pyfree(struct torch_plan *tp, const struct plan *plan, const struct cell *rc,
                          const struct strv *av, const char *src, const char *python)
{
	struct arena *a = tp->scan.a;
	const struct config *cfg = plan->cfg;
	bool off = false;
	for (size_t e = 0; e < cfg->n_extensions; e++)
		off |= cfg->extensions[e].kind == EXT_TORCH && cfg->extensions[e].python_free_off;
	const char *in = path_under(a, tp->scan.proj, src);
	if (!rc || off) {
		torchscan_kernel_python(&tp->scan, in, python,
		                        off ? "python-free = \"off\"" : NULL);
		return false;
	}
	bool cu = is_cu(src);
	struct strv torchf = {0}, with = {0}, without = {0}, compile = {0};
	const char *err = kernel_torch_flags(a, cfg, rc, &plan->toolkits[rc->toolkit], cu, &torchf);
	if (err) {
		torchscan_kernel_python(&tp->scan, in, python, err);
		return false;
	}
	for (size_t i = 0; i < av->n; i++)
		strv_push(a, &with, av->v[i]);
	for (size_t i = 0; i < torchf.n; i++)
		strv_push(a, &with, torchf.v[i]);
	struct strv shared = with;
	strv_push(a, &with, "-isystem");
	strv_push(a, &with, rc->py->include_dir);
	if (!tp->standins && !(tp->standins = torchscan_standins(&tp->scan, &with)))
		return false;
	with_standins(a, tp->standins, &shared, &without);
	pyfree_compile(a, &without, cu, &plan->toolkits[rc->toolkit], &compile);
	struct binding_decision bd = {.python = true};
	if (!torchscan_pyfree(&tp->scan, &with, &without, &compile, false, in, in, &bd))
		return false;
	if (bd.pyfree != PYFREE_PROVEN) {
		torchscan_kernel_python(&tp->scan, in, python,
		                        arena_printf(a, "%s", bd.pyfree_why));
		return false;
	}
	tp->kernels_pyfree = true;
	tp->tentative |= bd.tentative;
	return true;
}

/* Kernel src's scan command av with the flags torch adds to its compile (kernel_torch_flags),
 * into seen; false (seen untouched) when those cannot be known. */
static bool kernel_torch_argv(struct torch_plan *tp, const struct plan *plan, const struct cell *rc,
                              const struct strv *av, const char *src, struct strv *seen)
{
	struct arena *a = tp->scan.a;
	struct strv torchf = {0};
	if (kernel_torch_flags(a, plan->cfg, rc, &plan->toolkits[rc->toolkit], is_cu(src), &torchf))
		return false;
	struct strv out = {0};
	for (size_t i = 0; i < av->n; i++)
		strv_push(a, &out, av->v[i]);
	for (size_t i = 0; i < torchf.n; i++)
		strv_push(a, &out, torchf.v[i]);
	*seen = out;
	return true;
}

/* Whether kernel src (scan command av; python: the Python header its scan reached, or NULL)
 * includes Python's headers as its compile sees them, and if so its proof. Kernels that
 * include torch headers are compiled with torch's defines (-DTORCH_API_INCLUDE_EXTENSION_H
 * makes <torch/torch.h> include torch/extension.h and Python.h): then the scan adds them, as
 * the archive's edge does. False on a failure that ends the plan, or a kernel not proven. */
static bool kernel_python(struct torch_plan *tp, const struct plan *plan, const struct cell *rc,
                          const struct strv *tdirs, const struct strv *av, const char *src,
                          const char *python, bool *uses, const char **which)
{
	struct arena *a = tp->scan.a;
	const char *in = path_under(a, tp->scan.proj, src);
	struct strv seen = *av;
	if (tp->kernels_use_torch && rc && kernel_torch_argv(tp, plan, rc, av, src, &seen) &&
	    !torchscan_kernel(&tp->scan, &seen, in, tdirs, uses, which, &python))
		return false;
	if (!python)
		return true;
	if (!kernel_pyfree(tp, plan, rc, av, src, python))
		return false;
	/* Its scan stopped at Python.h after torch headers: it uses torch, said. */
	if (*uses)
		return true;
	/* Proven: what it includes, seen through the stand-ins (a kernel whose scan stopped at
	 * Python.h before any torch header shows them only here). */
	struct strv sv = {0};
	with_standins(a, tp->standins, &seen, &sv);
	return torchscan_kernel(&tp->scan, &sv, in, tdirs, uses, which, &python);
}

/* Each kernel's Python check (kernel_python) once the first scans decided whether the kernels
 * use torch; a kernel found to include a torch header only through the stand-ins (its first
 * scan stopped at Python.h) makes them use torch, and every kernel is checked again with
 * torch's flags. False on a failure that ends the plan. */
static bool kernels_python(struct torch_plan *tp, const struct plan *plan, const struct cell *rc,
                           const struct strv *tdirs, const struct strv *avs, const char **pys)
{
	const struct kernels_cfg *k = &plan->cfg->kernels;
	for (size_t i = 0; i < k->files.n; i++) {
		bool uses = false;
		const char *which = NULL;
		if (!kernel_python(tp, plan, rc, tdirs, &avs[i], k->files.v[i], pys[i], &uses,
		                   &which))
			return false;
		if (uses && !tp->kernels_use_torch) {
			tp->kernels_use_torch = true;
			tp->kernels_why = arena_printf(tp->scan.a, "%s includes %s", k->files.v[i],
			                               which ? which : "a torch header");
			i = (size_t)-1; /* again, with torch's flags */
		}
	}
	return true;
}

/* uses-torch = auto: does any kernel source include a torch header under the flags it is
 * compiled with? nvcc preprocesses .cu files with its own defines (__CUDACC__, __NVCC__), so
 * a torch include behind `#ifndef __CUDACC__` is not one. */
static bool kernels_decide(struct torch_plan *tp, const struct plan *plan, const char *cxx,
                           const char *cc)
{
	struct arena *a = tp->scan.a;
	const struct config *cfg = plan->cfg;
	const struct kernels_cfg *k = &cfg->kernels;
	bool torch_here = false;
	for (size_t i = 0; i < plan->n_cells; i++)
		torch_here |= plan->cells[i].selected && plan->cells[i].buildable &&
		              plan->cells[i].py->torch.present;
	if (k->uses_torch == TRI_AUTO && k->files.n && !torch_here) {
		/* No torch to build against: torch headers would fail the compile anyway. */
		tp->kernels_why = "no selected cell has torch";
		return true;
	}
	if (k->uses_torch != TRI_AUTO || k->files.n == 0) {
		tp->kernels_use_torch = k->uses_torch == TRI_ON;
		tp->kernels_why = arena_printf(a, "uses-torch = %s", tristate_name(k->uses_torch));
		return true;
	}
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		const struct toolkit_plan *tkp = &plan->toolkits[t];
		if (!tkp->used || !tkp->tk)
			continue;
		/* A torch at hand (any selected cell's of this toolkit) lets the preprocessor
		 * find torch's headers; without one, a missing torch header is the answer. */
		const struct cell *rc = NULL;
		for (size_t i = 0; i < plan->n_cells && !rc; i++) {
			const struct cell *c = &plan->cells[i];
			if (c->selected && c->buildable && c->toolkit == t &&
			    c->py->torch.present && c->py->torch.include_dirs.n)
				rc = c;
		}
		const struct torch_info *ti = rc ? &rc->py->torch : NULL;
		const char *link = ti ? torchscan_link(&tp->scan, ti) : NULL;
		if (ti && !link)
			return false;
		struct strv tdirs = {0};
		if (ti)
			torchscan_link_includes(&tp->scan, ti, link, &tdirs);
		struct strv *avs = arena_calloc(a, k->files.n + 1, sizeof(*avs));
		const char **pys = arena_calloc(a, k->files.n + 1, sizeof(*pys));
		for (size_t i = 0; i < k->files.n; i++) {
			const char *src = k->files.v[i];
			struct strv av = {0};
			bool cu = is_cu(src);
			strv_push(a, &av,
			          cu          ? tkp->tk->nvcc
			          : is_c(src) ? (tkp->tk->platform ? tkp->tk->host.cc : cc)
			                      : torchplan_cxx(tkp, cxx));
			if (!is_c(src))
				strv_push(a, &av, torchflags_std(ti));
			for (size_t d = 0; d < k->include_dirs.n; d++)
				strv_push(a, &av,
				          arena_printf(
				              a, "-I%s",
				              path_under(a, tp->scan.proj, k->include_dirs.v[d])));
			if (!cu)
				strv_push(a, &av, arena_printf(a, "-I%s", tkp->tk->include_dir));
			for (size_t d = 0; d < k->defines.n; d++)
				strv_push(a, &av, arena_printf(a, "-D%s", k->defines.v[d]));
			for (size_t d = 0; d < k->host_flags.n; d++)
				strv_push(a, &av,
				          cu ? arena_printf(a, "-Xcompiler=%s", k->host_flags.v[d])
				             : k->host_flags.v[d]);
			if (cu)
				for (size_t d = 0; d < k->nvcc_flags.n; d++)
					strv_push(a, &av, k->nvcc_flags.v[d]);
			for (size_t d = 0; d < tdirs.n; d++)
				strv_push(a, &av, arena_printf(a, "-I%s", tdirs.v[d]));
			bool uses = false;
			const char *which = NULL;
			const char *in = path_under(a, tp->scan.proj, src);
			if (!torchscan_kernel(&tp->scan, &av, in, &tdirs, &uses, &which, &pys[i]))
				return false;
			/* In a prefill pass, its scan with torch's flags too (kernel_python's,
			 * should the kernels use torch): one step, not a second one after this
			 * answer. Cheap where it includes no torch header: the flags are defines
			 * and dirs. Its answer is taken, or its failure reported, where
			 * kernel_python asks. */
			struct strv seen;
			bool su = false;
			const char *sw = NULL, *sp = NULL;
			if (tp->scan.batch && rc &&
			    kernel_torch_argv(tp, plan, rc, &av, src, &seen))
				(void)torchscan_kernel(&tp->scan, &seen, in, &tdirs, &su, &sw, &sp);
			avs[i] = av;
			if (uses && !tp->kernels_use_torch) {
				tp->kernels_use_torch = true;
				tp->kernels_why = arena_printf(a, "%s includes %s", src, which);
			}
		}
		if (!kernels_python(tp, plan, rc, &tdirs, avs, pys))
			return false;
	}
	if (tp->kernels_use_torch)
		return true;
	tp->kernels_why = "no kernel source includes a torch header";
	return true;
}

/* A .cu source of a torch extension: nvcc's preprocessor under nvcc's flags (c++ would take a
 * .cu for a linker input), with cell c's flags: per Python where Python's headers are in it,
 * else once; never a PCH. Returns false on a failure that ends the plan; *ok = false where the
 * preprocessor run failed. */
static bool scan_cu_source(struct torch_plan *tp, const struct plan *plan,
                           const struct extension_cfg *x, const struct cell *c,
                           const struct torch_flags *tf, const struct torch_plan_ext *te,
                           const char *src, struct binding_decision *bd, bool *ok)
{
	struct arena *a = tp->scan.a;
	struct strv cuf = {0};
	/* The project as the graph's nvcc commands name it (cproj): absolute with device line
	 * info, SANDBOX_CANON_PROJECT where those compile at fixed paths; the preprocessor runs
	 * here, so these name it by its own absolute path then (proj). */
	const char *cproj = torchplan_cu_proj(plan->cfg, x, tp->bwrap, tp->scan.proj);
	const char *proj = torchplan_cu_proj(plan->cfg, x, NULL, tp->scan.proj);
	strv_push(a, &cuf, plan->toolkits[c->toolkit].tk->nvcc);
	torchplan_cu_flags(a, plan->cfg, x, c, tf, proj, te->link, BIND_CELL, &cuf);
	if (!torchscan_binding(&tp->scan, &cuf, path_under(a, proj, src), NULL, bd))
		*ok = false;
	else if (bd->python &&
	         !ext_pyfree(tp, plan, x, c, tf, te->link, proj, cproj, &cuf, src, bd))
		return false;
	return true;
}

/* The first scan of extension x's sources with cell c's flags (flags: the c++ command): per
 * Python or shared, proven Python-free or not, without any PCH question. Adds the sources
 * that may use a PCH to *n_cand. Returns false on a failure that ends the plan; *ok = false
 * where a preprocessor run failed. */
static bool scan_sources(struct torch_plan *tp, const struct plan *plan,
                         const struct extension_cfg *x, const struct cell *c,
                         const struct torch_flags *tf, struct torch_plan_ext *te,
                         const struct strv *flags, size_t *n_cand, bool *ok)
{
	struct arena *a = tp->scan.a;
	for (size_t f = 0; f < x->files.n; f++) {
		const char *src = x->files.v[f];
		struct binding_decision *bd = &te->srcs[f];
		if (is_c(src)) {
			bd->python = true; /* C sources stay as they are */
			continue;
		}
		if (is_cu(src)) {
			if (!scan_cu_source(tp, plan, x, c, tf, te, src, bd, ok))
				return false;
			continue;
		}
		if (!torchscan_binding(&tp->scan, flags, path_under(a, tp->scan.proj, src), NULL,
		                       bd)) {
			*ok = false;
			continue;
		}
		if (bd->python && !ext_pyfree(tp, plan, x, c, tf, te->link, tp->scan.proj,
		                              tp->scan.proj, flags, src, bd))
			return false;
		if (!bd->torch_ext || !bd->python || x->pch == TRI_OFF)
			continue;
		if (excluded(x, src))
			bd->pch = PCH_EXCLUDED;
		else
			(*n_cand)++;
	}
	return true;
}

/* The cells of one torch, per flag set (toolkit, -fwrapv or not). */
struct flag_sets {
	size_t n_cells; /* the cells */
	size_t n_sets;  /* the flag sets they fall into */
	size_t min_k;   /* the cells of the smallest set */
};

/* The flag sets of cell c's torch: every cell of the config's matrix on this platform that
 * pairs with it, selected or not, found here or not, so that the PCH (and so the objects) of
 * a cell is the same whether one cell or all are built, here or on a runner. */
static struct flag_sets torch_flag_sets(struct arena *a, const struct plan *plan,
                                        const struct cell *c)
{
	struct flag_sets fs = {0};
	size_t *per_set = arena_calloc(a, 2 * plan->n_toolkits + 2, sizeof(*per_set));
	for (size_t k = 0; k < plan->n_cells; k++) {
		const struct cell *o = &plan->cells[k];
		/* (A matrix without a torch axis: every cell takes the torch its Python has.) */
		bool same_torch = c->torch ? o->torch && !strcmp(o->torch, c->torch) : !o->torch;
		if (o->unpaired || !same_torch || strcmp(o->platform, c->platform) != 0)
			continue;
		fs.n_cells++;
		fs.n_sets += per_set[2 * o->toolkit + version_wrapv(o->python)]++ == 0;
	}
	for (size_t k = 0; k < 2 * plan->n_toolkits + 2; k++)
		if (per_set[k] && (!fs.min_k || per_set[k] < fs.min_k))
			fs.min_k = per_set[k];
	return fs;
}

/* The .gch files te's sources would share: one per flag set (torch/all.h), else per cell. */
static size_t pch_gchs(const struct torch_plan_ext *te, const struct flag_sets *fs)
{
	size_t gchs = te->pch_shared ? fs->n_sets : fs->n_cells;
	return gchs ? gchs : 1;
}

/* A .gch costs about what three compiles of a source that includes torch/extension.h save
 * with it: it pays where n_use sources, in every cell, make three compiles per .gch. */
static bool pch_pays(size_t n_use, const struct torch_plan_ext *te, const struct flag_sets *fs)
{
	return n_use * fs->n_cells >= 3 * pch_gchs(te, fs);
}

/* Whether source f may use the PCH: a C++ source whose closure holds torch/extension.h and
 * Python's headers, not excluded, with pch not off. */
static bool pch_candidate(const struct extension_cfg *x, const struct binding_decision *bd,
                          size_t f)
{
	const char *src = x->files.v[f];
	return !is_c(src) && !is_cu(src) && bd->torch_ext && bd->python && x->pch != TRI_OFF &&
	       bd->pch != PCH_EXCLUDED;
}

/* The PCH question, asked of each source that may use one with header forced first (the
 * proof's answer stays). With pch = "auto" where the .gch could not pay even if every
 * candidate took it (pch_decide's rule), none is asked (a -E of torch's headers each): they
 * are marked as taking it, and pch_decide turns them down, saying why. Returns false when a
 * preprocessor run failed, or a source refuses the PCH that pch = "on" demands (reported). */
static bool scan_pch(struct torch_plan *tp, const struct config *cfg, const struct extension_cfg *x,
                     struct torch_plan_ext *te, const struct flag_sets *fs,
                     const struct strv *flags, const char *header)
{
	struct arena *a = tp->scan.a;
	size_t n_cand = 0;
	for (size_t f = 0; f < x->files.n; f++)
		n_cand += pch_candidate(x, &te->srcs[f], f);
	bool cannot_pay = x->pch == TRI_AUTO && !pch_pays(n_cand, te, fs);
	bool ok = true;
	for (size_t f = 0; f < x->files.n; f++) {
		const char *src = x->files.v[f];
		struct binding_decision *bd = &te->srcs[f];
		if (!pch_candidate(x, bd, f))
			continue;
		if (cannot_pay) {
			bd->pch = PCH_USE;
			continue;
		}
		enum pyfree_state pf = bd->pyfree;
		const char *pf_why = bd->pyfree_why;
		if (!torchscan_binding(&tp->scan, flags, path_under(a, tp->scan.proj, src), header,
		                       bd)) {
			ok = false;
			continue;
		}
		bd->pyfree = pf;
		bd->pyfree_why = pf_why;
		if (bd->pch == PCH_REFUSED && x->pch == TRI_ON) {
			diag_path(tp->scan.d, DIAG_ERROR, cfg->pyproject,
			          "%s: pch = \"on\", but %s; add it to pch-exclude "
			          "or set pch = \"auto\" (the source is then compiled "
			          "without the precompiled header)",
			          src, bd->pch_why);
			ok = false;
		}
	}
	return ok;
}

/* Whether the sources that can use the PCH do, and why. A .gch costs about what three
 * compiles of a source that includes torch/extension.h save with it (~35 CPU-s against
 * 27 -> 12 CPU-s a source): with auto, it is built only where each .gch serves three compiles
 * or more. */
static void pch_decide(struct arena *a, const struct extension_cfg *x, struct torch_plan_ext *te,
                       const struct flag_sets *fs)
{
	size_t n_use = 0;
	for (size_t f = 0; f < x->files.n; f++)
		n_use += te->srcs[f].pch == PCH_USE;
	bool pays = pch_pays(n_use, te, fs);
	const char *why = pch_use_why(a, te->pch_shared, fs->min_k, fs->n_cells, fs->n_sets);
	if (x->pch == TRI_AUTO && !pays)
		why = arena_printf(a,
		                   "%zu source%s x %zu Python%s would use %zu .gch; a PCH "
		                   "pays from three compiles per .gch (pch = \"on\" forces it)",
		                   n_use, n_use == 1 ? "" : "s", fs->n_cells,
		                   fs->n_cells == 1 ? "" : "s", pch_gchs(te, fs));
	for (size_t f = 0; f < x->files.n; f++)
		if (te->srcs[f].pch == PCH_USE) {
			te->srcs[f].pch = x->pch == TRI_AUTO && !pays ? PCH_NONE : PCH_USE;
			te->srcs[f].pch_why = why;
		}
}

/* The decisions for torch-kind extension e under the torch of cell c, the first selected cell
 * of that torch (the representative), added to tp->exts. Returns false on a failure that ends
 * the plan; *ok = false where a preprocessor run failed or pch = "on" was refused. */
static bool plan_extension(struct torch_plan *tp, const struct plan *plan, const char *cxx,
                           size_t e, const struct cell *c, bool *ok)
{
	struct arena *a = tp->scan.a;
	const struct config *cfg = plan->cfg;
	const struct extension_cfg *x = &cfg->extensions[e];
	const struct toolkit *tk = plan->toolkits[c->toolkit].tk;
	struct torch_flags tf;
	const char *err = NULL;
	if (!torchflags_for(a, x, c->py, tk, &tf, &err))
		return true; /* buildgraph reports it */
	struct torch_plan_ext *te = &tp->exts[tp->n_exts++];
	te->ext = e;
	te->torch = c->py->torch.version;
	te->rep = c;
	te->platform = c->py->torch.platform;
	te->link = torchscan_link(&tp->scan, &c->py->torch);
	if (!te->link)
		return false;
	te->srcs = arena_calloc(a, x->files.n + 1, sizeof(*te->srcs));
	struct strv flags = {0};
	strv_push(a, &flags, torchplan_cxx(&plan->toolkits[c->toolkit], cxx));
	torchplan_binding_flags(a, cfg, x, c, tk, &tf, tp->scan.proj, te->link, BIND_CELL, &flags);
	size_t n_cand = 0;
	if (!scan_sources(tp, plan, x, c, &tf, te, &flags, &n_cand, ok))
		return false;
	struct flag_sets fs = torch_flag_sets(a, plan, c);
	/* Which header to precompile. torch/all.h holds no Python header, so one .gch serves
	 * every Python of a flag set, but each source then parses torch/python.h (pybind11,
	 * Python.h) itself. Measured (bench/torchbind, torch 2.11, 8 sources, 4 Pythons): a .gch
	 * costs ~35 CPU-s, and a source ~1.5 CPU-s more with torch/all.h's than with
	 * torch/extension.h's. So torch/all.h where the .gch builds it saves outweigh that, in
	 * the smallest flag set of k Pythons: (k - 1) * 35 > k * n * 1.5; else one .gch of
	 * torch/extension.h per Python (always so for a single Python, as a CI runner that
	 * builds one cell is). */
	te->pch_shared = fs.min_k >= 2 && (fs.min_k - 1) * 70 > fs.min_k * n_cand * 3;
	const char *header = te->pch_shared ? "torch/all.h" : "torch/extension.h";
	if (!scan_pch(tp, cfg, x, te, &fs, &flags, header))
		*ok = false;
	pch_decide(a, x, te, &fs);
	return true;
}

/* Extension e of another kind than torch under cell c's toolkit (c: its first selected cell):
 * each source through the preprocessor with the flags the graph compiles it with per Python
 * (nvcc's for a .cu), added to tp->exts when a source holds no Python header or is a .cu (the
 * graph compiles those by these decisions; the others per Python, as ever). *ok = false where
 * a preprocessor run failed. */
static void plan_plain(struct torch_plan *tp, const struct plan *plan, const char *cxx,
                       const char *cc, size_t e, const struct cell *c, bool *ok)
{
	struct arena *a = tp->scan.a;
	const struct config *cfg = plan->cfg;
	const struct extension_cfg *x = &cfg->extensions[e];
	const struct toolkit *tk = plan->toolkits[c->toolkit].tk;
	struct torch_flags tf = {0};
	const char *err = NULL;
	if (x->kind == EXT_PYBIND11 && !torchflags_for(a, x, c->py, tk, &tf, &err))
		return; /* buildgraph reports it */
	struct torch_plan_ext te = {.ext = e, .toolkit = c->toolkit, .rep = c};
	te.srcs = arena_calloc(a, x->files.n + 1, sizeof(*te.srcs));
	bool keep = false;
	for (size_t f = 0; f < x->files.n; f++) {
		const char *src = x->files.v[f];
		struct strv argv = {0};
		const char *proj = tp->scan.proj;
		if (is_cu(src)) {
			proj = torchplan_cu_proj(cfg, x, NULL, tp->scan.proj);
			strv_push(a, &argv, tk->nvcc);
			plainflags_cu(a, cfg, x, c, proj, false, &argv);
		} else {
			strv_push(a, &argv, plainflags_cc(tk, x, src, cc, cxx));
			plainflags_host(a, cfg, x, c, tk, &tf, proj, src, false, &argv);
		}
		if (!torchscan_binding(&tp->scan, &argv, path_under(a, proj, src), NULL,
		                       &te.srcs[f]))
			*ok = false;
		keep |= is_cu(src) || !te.srcs[f].python;
	}
	if (keep)
		tp->exts[tp->n_exts++] = te;
}

/* The sources of the extensions of other kinds than torch that may hold a kernel (more than one
 * source, or a .cu), once per toolkit, with the flags of its first selected cell. */
static bool plain_decide(struct torch_plan *tp, const struct plan *plan, const char *cxx,
                         const char *cc)
{
	const struct config *cfg = plan->cfg;
	bool ok = true;
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const struct extension_cfg *x = &cfg->extensions[e];
		bool cu = false;
		for (size_t f = 0; f < x->files.n; f++)
			cu |= is_cu(x->files.v[f]);
		if (x->kind == EXT_TORCH || (x->files.n < 2 && !cu))
			continue;
		bool *done = arena_calloc(tp->scan.a, plan->n_toolkits + 1, sizeof(*done));
		for (size_t i = 0; i < plan->n_cells; i++) {
			const struct cell *c = &plan->cells[i];
			if (!c->selected || !c->buildable || !c->py || done[c->toolkit])
				continue;
			done[c->toolkit] = true;
			plan_plain(tp, plan, cxx, cc, e, c, &ok);
		}
	}
	return ok;
}

/* The decisions, into out (its scan context set). */
static bool torchplan_decide(const struct plan *plan, const char *cxx, const char *cc,
                             struct torch_plan *out)
{
	const struct config *cfg = plan->cfg;
	struct arena *a = out->scan.a;
	if (!kernels_decide(out, plan, cxx, cc))
		return false;
	bool ok = true;
	out->exts =
	    arena_calloc(a, cfg->n_extensions * (plan->n_cells + 1) + 1, sizeof(*out->exts));
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		if (cfg->extensions[e].kind != EXT_TORCH)
			continue;
		for (size_t i = 0; i < plan->n_cells; i++) {
			const struct cell *c = &plan->cells[i];
			if (!c->selected || !c->buildable || !c->py->torch.present ||
			    !c->py->torch.version || torchplan_find(out, e, c))
				continue;
			if (!plan_extension(out, plan, cxx, e, c, &ok))
				return false;
		}
	}
	return plain_decide(out, plan, cxx, cc) && ok;
}

struct prefill_ctx {
	const struct plan *plan;
	const char *cxx, *cc;
	const char *bwrap, *cuwheel;
};

/* A prefill pass (torchscan_prefill): the decisions, taken and dropped. */
static void prefill_pass(void *ctx, struct scan_ctx *s)
{
	const struct prefill_ctx *p = ctx;
	struct torch_plan tp = {
	    .scan = *s, .cxx = p->cxx, .bwrap = p->bwrap, .cuwheel = p->cuwheel};
	(void)torchplan_decide(p->plan, p->cxx, p->cc, &tp);
}

bool torchplan_make(struct arena *a, struct diag *d, const struct plan *plan, const char *build_dir,
                    const char *cxx, const char *cc, int workers, enum proof_mode proofs,
                    const char *bwrap, const char *cuwheel, struct torch_plan *out)
{
	memset(out, 0, sizeof(*out));
	out->scan = (struct scan_ctx){.a = a,
	                              .d = d,
	                              .build_dir = build_dir,
	                              .proofs = proofs,
	                              .mtimes = torchscan_mtimes(a)};
	out->scan.proj = path_relative(a, build_dir, plan->cfg->project_dir);
	out->cxx = cxx;
	if (bwrap && cuwheel) {
		out->bwrap = bwrap;
		out->cuwheel = cuwheel;
		out->scan.canon_project = plan->cfg->project_dir;
	}
	struct prefill_ctx p = {
	    .plan = plan, .cxx = cxx, .cc = cc, .bwrap = out->bwrap, .cuwheel = out->cuwheel};
	/* A guess: the kernels' decisions only, from their text and the cache (nothing queued:
	 * the plan's own scans run after it). */
	if (proofs == PROOF_GUESS)
		return kernels_decide(out, plan, cxx, cc);
	/* Recording runs nothing: no scan to queue. */
	if (proofs != PROOF_RECORD)
		torchscan_prefill(&out->scan, workers > 0 ? (size_t)workers : 1, prefill_pass, &p);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool ok = torchplan_decide(plan, cxx, cc, out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* What the prefill could not run (all of it with one worker): said, not silent. */
	if (out->scan.ran)
		diag_msg(d, DIAG_NOTE, "source scan: %zu run%s%s, one at a time, in %.1f s",
		         out->scan.ran, out->scan.ran == 1 ? "" : "s",
		         workers > 1 ? " after the steps" : "",
		         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return ok;
}
