/* archive_rules.c: the kernel archive of each toolkit: its nvcc and cc edges, the device
 * link (rdc) and the archive (ninja_gen.h). */
#include "graph/ninja_gen.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "base/path.h"
#include "base/sandbox.h"
#include "kernels/buildflags.h"
#include "kernels/kernels_key.h"
#include "standards/json_values.h"
#include "standards/ninja.h"
#include "standards/toml.h"
#include "toolchain/toolchain.h"
#include "torch/torch_plan.h"
#include "torch/torchflags.h"

static bool kernels_line_info(const struct kernels_cfg *k)
{
	return torchplan_line_info(k);
}

/* nvcc --threads for the kernels of toolkit tp: the CPUs shared among the .cu files ninja
 * compiles at once, at most one per arch. */
static int kernels_nvcc_threads(const struct gen *g, const struct toolkit_plan *tp)
{
	const struct kernels_cfg *k = &g->cfg->kernels;
	size_t n_cu = 0;
	for (size_t i = 0; i < k->files.n; i++)
		n_cu += gen_is_cu(k->files.v[i]);
	int par = g->o->jobs < (int)n_cu ? g->o->jobs : (int)n_cu;
	int threads = par > 0 ? g->r->ncpu / par : 1;
	if (threads < 1)
		threads = 1;
	if (threads > (int)tp->n_archs)
		threads = (int)tp->n_archs;
	/* CUWHEEL_NVCC_THREADS overrides the choice (benchmarks sweep it; big machines raise it).
	 */
	return g->r->nvcc_threads ? g->r->nvcc_threads : threads;
}

/* A project path (relative to it, or absolute) as a compile with device line info names it:
 * absolute, below li_proj (the project's own path, or SANDBOX_CANON_PROJECT). */
static const char *li_path(struct gen *g, const char *li_proj, const char *path)
{
	const char *proj = g->cfg->project_dir;
	size_t n = strlen(proj);
	if (path[0] != '/')
		return os_join(g->a, li_proj, path);
	if (!strncmp(path, proj, n) && (path[n] == '/' || !path[n]))
		return arena_printf(g->a, "%s%s", li_proj, path + n);
	return path;
}

/* The variables of a .cu kernel's nvcc edge (src: its name in object paths and seeds).
 * li_proj: with device line info, where the compile sees the project (its own path, or
 * SANDBOX_CANON_PROJECT under rule nvcc_canon): the include dirs by absolute path below it;
 * else NULL. */
static void emit_kernel_nvcc(struct gen *g, const struct toolkit_plan *tp, const char *src,
                             bool torch, const struct torch_flags *ktf, int threads,
                             const char *li_proj)
{
	bool li = li_proj != NULL;
	struct strbuf *sb = &g->sb;
	const struct kernels_cfg *k = &g->cfg->kernels;
	sb_puts(sb, "\n  cuda = ");
	sb_puts(sb, tp->cuda);
	sb_puts(sb, "\n  nvcc = ");
	ninja_arg(sb, tp->tk->nvcc);
	/* Kernels that include torch headers take BuildExtension's order (-std
	 * last, torch's flags around the project's: torchflags.h). */
	/* The project's own -O level, when it is another, is the one nvcc sees: two would make
	 * nvcc warn "incompatible redefinition for option 'optimize'" on every kernel. */
	bool own_opt = toolchain_nvcc_own_opt(&k->nvcc_flags);
	sb_puts(sb, own_opt ? "\n  flags = " : "\n  flags = -O3 ");
	/* Likewise the project's own standard: nvcc takes the last -std and warns on two. */
	if (!torch && !toolchain_nvcc_own_std(&k->nvcc_flags))
		sb_puts(sb, "-std=c++17 ");
	sb_puts(sb, "-Xcompiler=-fPIC -Xcompiler=-fvisibility=hidden ");
	ninja_arg(sb, gen_xcompiler(g->a, gen_prefix_map(g)));
	if (li) {
		sb_putc(sb, ' ');
		ninja_arg(
		    sb, gen_xcompiler(g->a, arena_printf(g->a, "-ffile-prefix-map=%s=.", li_proj)));
	}
	gen_emit_toolkit_flags(g, tp, src, threads);
	if (k->rdc)
		sb_puts(sb, " -rdc=true");
	sb_puts(sb, cuda_arch_nvcc_flags(g->a, tp->archs, tp->n_archs, true));
	/* A kernel proven Python-free: the stand-ins first, as in the proof. */
	if (g->tp->kernels_pyfree) {
		sb_putc(sb, ' ');
		ninja_arg(sb, arena_printf(g->a, "-I%s", g->tp->standins));
	}
	if (li)
		for (size_t d = 0; d < k->include_dirs.n; d++) {
			sb_putc(sb, ' ');
			ninja_arg(sb, arena_printf(g->a, "-I%s",
			                           li_path(g, li_proj, k->include_dirs.v[d])));
		}
	else
		gen_emit_includes(g, &k->include_dirs);
	gen_emit_flags(g, NULL, &ktf->incs, false);
	gen_emit_flags(g, "-D", &k->defines, false);
	gen_emit_flags(g, NULL, &ktf->nvcc_common, false);
	gen_emit_flags(g, NULL, &k->host_flags, true);
	gen_emit_flags(g, NULL, &k->nvcc_flags, false);
	gen_emit_flags(g, NULL, &ktf->post, false);
}

/* The variables of a .c or .cpp kernel's cc edge, built against tpy's torch when not NULL. */
static void emit_kernel_cc(struct gen *g, const struct toolkit_plan *tp, const char *src,
                           const struct interp *tpy, const struct torch_flags *ktf,
                           const struct strv *cpp_post)
{
	struct strbuf *sb = &g->sb;
	const struct kernels_cfg *k = &g->cfg->kernels;
	sb_puts(sb, "\n  what = kernels CUDA ");
	sb_puts(sb, tp->cuda);
	sb_puts(sb, "\n  cc = ");
	ninja_arg(sb, gen_host_cc(g, tp, gen_is_cxx(src)));
	sb_puts(sb, "\n  flags = -O2 -fPIC -fvisibility=hidden ");
	ninja_arg(sb, gen_prefix_map(g));
	if (g->tp->kernels_pyfree) {
		sb_putc(sb, ' ');
		ninja_arg(sb, arena_printf(g->a, "-I%s", g->tp->standins));
	}
	gen_emit_includes(g, &k->include_dirs);
	if (gen_is_cxx(src))
		gen_emit_flags(g, NULL, &ktf->incs, false);
	sb_putc(sb, ' ');
	ninja_arg(sb, arena_printf(g->a, "-I%s", tp->tk->include_dir));
	gen_emit_flags(g, "-D", &k->defines, false);
	gen_emit_flags(g, NULL, &k->host_flags, false);
	if (gen_is_cxx(src))
		gen_emit_flags(g, NULL, cpp_post, false);
	struct strv hf = {0};
	buildflags_host(g->a, g->cfg, tpy ? &tpy->torch : NULL, true, &hf);
	gen_emit_flags(g, NULL, &hf, false);
}

/* With rdc = true, the device link of the archive's objects: appends dlink.o to objs. */
static void emit_kernel_dlink(struct gen *g, const struct toolkit_plan *tp,
                              const struct archive_paths *ap, struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	char *dlink = arena_printf(g->a, "%s/obj/dlink.o", ap->dir);
	gen_emit_build(g, dlink, "link", NULL, "link dlink.o");
	ninja_paths(sb, objs);
	sb_puts(sb, "\n  ld = ");
	ninja_arg(sb, tp->tk->nvcc);
	sb_puts(sb, " -dlink -Xcompiler=-fPIC");
	if (tp->tk->host.ccbin) {
		sb_puts(sb, " -ccbin ");
		ninja_arg(sb, tp->tk->host.cxx);
	}
	sb_puts(sb, cuda_arch_nvcc_flags(g->a, tp->archs, tp->n_archs, false));
	sb_puts(sb, "\n  ldflags =\n");
	strv_push(g->a, objs, dlink);
}

/* The kernel archive of one toolkit. */
void gen_emit_archive(struct gen *g, const struct toolkit_plan *tp, struct archive_paths *ap)
{
	struct strbuf *sb = &g->sb;
	const struct kernels_cfg *k = &g->cfg->kernels;
	const struct graph_ktorch *kt = &g->r->ktorch[tp - g->plan->toolkits];
	const struct interp *tpy = kt->py;
	ap->key = kernels_archive_key(g->a, g->cfg, tp, gen_host_cc(g, tp, false),
	                              tpy ? &tpy->torch : NULL);
	ap->dir = arena_printf(g->a, "kernels/cu%d%d-%s", tp->tk->major, tp->tk->minor, ap->key);
	ap->archive = arena_printf(g->a, "%s/libkernels.a", ap->dir);
	int threads = kernels_nvcc_threads(g, tp);
	if (g->o->imported_archives) {
		/* The archive is a source here: it was built by `--stage kernels` elsewhere. */
		sb_printf(sb, "# CUDA %s: kernels imported (%s)\n\n", tp->cuda, ap->archive);
		ap->n_objects = k->files.n;
		return;
	}
	sb_printf(sb,
	          "# CUDA %s (%s): kernels compiled once, shared by every cell of this toolkit\n",
	          tp->cuda, tp->tk->root);
	struct strv objs = {0};
	for (size_t i = 0; i < k->files.n; i++) {
		const char *src;
		const char *in = gen_source_input(g, k->files.v[i], gen_is_cu(k->files.v[i]), &src);
		/* Each object in its own directory: nvcc's -objtemp puts its temporaries there,
		 * and sources sharing a basename (texture.cu, texture.cpp) never collide. */
		char *obj = arena_printf(g->a, "%s/obj/%s/%s.o", ap->dir, src,
		                         strrchr(src, '/') ? strrchr(src, '/') + 1 : src);
		strv_push(g->a, &objs, obj);
		/* Device line info (-lineinfo, -G) records each source as cicc saw it, made
		 * absolute against the working directory: with bubblewrap (o->bwrap) the compile
		 * sees the project and the build dir at fixed paths (rule nvcc_canon), so the
		 * wheel's bytes are the same wherever both are; without it the project is named by
		 * its own absolute path (the same from every build dir, not from every project
		 * dir). A stub (a name nvcc cannot take) includes the source by its own path. */
		bool li = gen_is_cu(src) && kernels_line_info(k);
		bool own = li && strcmp(in, gen_from_build(g, k->files.v[i])) == 0;
		bool canon = own && g->o->bwrap;
		const char *li_proj = !li     ? NULL
		                      : canon ? SANDBOX_CANON_PROJECT
		                              : g->cfg->project_dir;
		gen_emit_build(g, obj,
		               canon            ? "nvcc_canon"
		               : gen_is_cu(src) ? "nvcc"
		                                : "cc",
		               own && !canon ? li_path(g, li_proj, k->files.v[i]) : in,
		               arena_printf(g->a, "%s %s", gen_is_cu(src) ? "nvcc" : "cc", src));
		if (canon) {
			sb_puts(sb, "\n  src = ");
			ninja_arg(sb, li_path(g, li_proj, k->files.v[i]));
		}
		if (gen_is_cu(src))
			emit_kernel_nvcc(g, tp, src, tpy != NULL, &kt->tf, threads, li_proj);
		else
			emit_kernel_cc(g, tp, src, tpy, &kt->tf, &kt->cpp_post);
		sb_puts(sb, "\n");
	}
	ap->n_objects = objs.n;
	if (k->rdc)
		emit_kernel_dlink(g, tp, ap, &objs);
	gen_emit_build(g, ap->archive, "ar", NULL, "ar");
	ninja_paths(sb, &objs);
	sb_puts(sb, "\n\n");
}
