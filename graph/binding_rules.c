/* binding_rules.c: each cell's extensions: binding objects (per Python or shared, with
 * precompiled torch headers where they pay), torch's .cu sources and the module links
 * (ninja_gen.h). */
#include "graph/ninja_gen.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "base/path.h"
#include "kernels/kernels_key.h"
#include "standards/json_values.h"
#include "standards/ninja.h"
#include "standards/toml.h"
#include "torch/plainflags.h"
#include "torch/torch_plan.h"
#include "torch/torchflags.h"

/* Digest of a shared binding object's inputs: toolkit, compiler and every flag. */
static char *shared_key(struct gen *g, const struct toolkit_plan *tp, const struct strv *flags)
{
	return torchplan_shared_key(g->a, tp, g->cxx, flags);
}

/* Appends obj to objs. Returns true when obj is new to the graph (its build line is the
 * caller's to write), false when an earlier cell already built it (a shared object). */
static bool claim_object(struct gen *g, const char *obj, struct strv *objs)
{
	strv_push(g->a, objs, obj);
	if (strv_contains(&g->emitted, obj))
		return false;
	strv_push(g->a, &g->emitted, obj);
	return true;
}

/* The rules for sources compiled with a precompiled torch header, once per graph. The .gch
 * itself (hundreds of MB) is built without ccache, which would evict the rest of its cache for
 * it; the sources that use it go through ccache with the sloppiness it needs. */
static void emit_pch_rules(struct gen *g)
{
	if (strv_contains(&g->emitted, "rule pch"))
		return;
	strv_push(g->a, &g->emitted, "rule pch");
	sb_puts(&g->sb, "rule pch\n"
	                "  command = $cc $flags -x c++-header -MD -MF $out.d -c $in -o $out\n"
	                "  depfile = $out.d\n"
	                "  deps = gcc\n"
	                "  description = $what: pch $header\n\n"
	                "rule cc_pch\n"
	                "  command = CCACHE_SLOPPINESS=pch_defines,time_macros"
	                "$${CCACHE_SLOPPINESS:+,$$CCACHE_SLOPPINESS} $launcher $cc $flags -MD -MF "
	                "$out.d -c $in -o $out\n"
	                "  depfile = $out.d\n"
	                "  deps = gcc\n"
	                "  description = $what: cc $in (pch)\n\n");
}

/* The .gch of header (torch/all.h, torch/extension.h) built with flags in dir, once in the
 * graph. Returns the header to force first; the .gch lies beside it. */
static const char *emit_pch(struct gen *g, const struct toolkit_plan *tp, const char *dir,
                            const char *header, const char *what, const struct strv *flags)
{
	const char *base = strrchr(header, '/');
	const char *stub = arena_printf(g->a, "%s/torch_%s", dir, base ? base + 1 : header);
	const char *gch = arena_printf(g->a, "%s.gch", stub);
	if (strv_contains(&g->emitted, gch))
		return stub;
	strv_push(g->a, &g->emitted, gch);
	/* Written into g->pch (see struct gen): swapped in for the emitters below. */
	struct strbuf rest = g->sb;
	g->sb = g->pch;
	emit_pch_rules(g);
	/* The header the .gch stands for: written only when it differs, so its mtime moves only
	 * when it does. */
	gen_need_file(g, os_join(g->a, g->bdir, stub),
	              arena_printf(g->a, "#include <%s>\n", header));
	struct strbuf *sb = &g->sb;
	gen_emit_build(g, gch, "pch", stub, arena_printf(g->a, "pch %s", header));
	sb_printf(sb, "\n  what = %s\n  header = %s\n  cc = ", what, header);
	ninja_arg(sb, torchplan_cxx(tp, g->cxx));
	sb_puts(sb, "\n  flags =");
	gen_emit_flags(g, NULL, flags, false);
	sb_puts(sb, "\n\n");
	g->pch = g->sb;
	g->sb = rest;
	return stub;
}

/* A shared object whose compile the Python-free proof already ran, with this very command
 * (torchplan_compile_argv), into the scan cache (bd->obj, for obj): the graph copies it, so
 * that source is compiled once. False when the proof kept no object for obj (then the caller
 * emits the compile). */
static bool emit_proof_object(struct gen *g, const struct binding_decision *bd, const char *obj,
                              const char *what, const struct strv *cmd)
{
	if (!bd->obj || !bd->obj_for || strcmp(bd->obj_for, obj) != 0)
		return false;
	if (!strv_contains(&g->emitted, "rule proof_obj")) {
		strv_push(g->a, &g->emitted, "rule proof_obj");
		sb_puts(&g->sb,
		        "rule proof_obj\n"
		        "  command = cp -f $in $out\n"
		        "  description = $what: $out (compiled by the Python-free proof)\n\n");
	}
	long cell = g->cell;
	g->cell = -1; /* a shared object: no cell's step */
	gen_emit_build(g, obj, "proof_obj", bd->obj, "copy shared");
	g->cell = cell;
	sb_puts(&g->sb, "\n  what = ");
	ninja_arg(&g->sb, what);
	/* The command that made it (read by nothing: for whoever reads this file). */
	sb_puts(&g->sb, "\n  compiled_by =");
	gen_emit_flags(g, NULL, cmd, false);
	sb_puts(&g->sb, "\n");
	return true;
}

/* A .cu among a torch extension's sources, compiled by nvcc as BuildExtension would (its
 * flags and order: torchplan_cu_flags): once per (toolkit, torch, flags) where the
 * preprocessor found no Python header in it, else per Python with that Python's headers.
 * Appends its object to objs. */
static void emit_torch_cu(struct gen *g, const struct cell *c, const struct extension_cfg *x,
                          const struct torch_plan_ext *te, size_t i, const struct torch_flags *tf,
                          const struct cell_paths *cp, struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	const char *src = x->files.v[i];
	const struct binding_decision *bd = &te->srcs[i];
	bool shared = !bd->python;
	/* Device line info: the project at SANDBOX_CANON_PROJECT (rule nvcc_canon, as for the
	 * kernels) where bubblewrap works, else by its absolute path. */
	bool li = torchplan_ext_line_info(g->cfg, x);
	const char *name;
	const char *in = gen_source_input(g, src, true, &name);
	bool own = li && !strcmp(in, gen_from_build(g, src));
	bool canon = own && g->o->bwrap;
	const char *proj = torchplan_cu_proj(g->cfg, x, canon ? g->o->bwrap : NULL, g->proj);
	struct strv flags = {0};
	/* Proven Python-free: the stand-ins first, as in the proof. */
	if (shared)
		torchplan_shared_flags(g->a, g->cfg, x, c, tp->tk, tf, proj, te->link,
		                       bd->pyfree == PYFREE_PROVEN ? g->tp->standins : NULL, true,
		                       &flags);
	else
		torchplan_cu_flags(g->a, g->cfg, x, c, tf, proj, te->link, BIND_CELL, &flags);
	/* The source as nvcc is given it (under rule nvcc_canon, $src; in stays ninja's). */
	const char *at = !own ? in : src[0] == '/' ? src : os_join(g->a, proj, src);
	if (own && !canon)
		in = at;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	/* Each object in its own directory: -objtemp puts nvcc's temporaries there. */
	const char *obj =
	    shared ? torchplan_shared_obj(g->a, tp, g->cxx, x->module, name, true, &flags)
	           : arena_printf(g->a, "%s/obj/%s/%s/%s.o", cp->dir, x->module, name, base);
	if (!claim_object(g, obj, objs))
		return;
	struct strv cmd = {0};
	torchplan_compile_argv(g->a, tp, g->cxx, proj, name, true, &flags, &cmd);
	if (shared && te->torch &&
	    emit_proof_object(g, bd, obj,
	                      arena_printf(g->a, "shared CUDA %s torch %s", tp->cuda, te->torch),
	                      &cmd))
		return;
	/* A shared torch .cu (torch's headers, every arch: often the build's longest step) goes
	 * with the .gch edges, before every other edge: ninja 1.11 starts ready edges in the
	 * file's order. */
	struct strbuf rest = g->sb;
	if (shared)
		g->sb = g->pch;
	/* A shared object is no cell's step: the report shows it apart. */
	long cell = g->cell;
	g->cell = shared ? -1 : cell;
	gen_emit_build(g, obj, canon ? "nvcc_canon" : "nvcc", in,
	               shared ? "nvcc shared" : "nvcc binding");
	g->cell = cell;
	if (canon) {
		sb_puts(sb, "\n  src = ");
		ninja_arg(sb, at);
	}
	sb_printf(sb, "\n  cuda = %s\n  nvcc = ", tp->cuda);
	ninja_arg(sb, cmd.v[0]);
	sb_puts(sb, "\n  flags =");
	for (size_t k = 1; k < cmd.n; k++) {
		sb_putc(sb, ' ');
		/* The arch flags as cuda_arch_nvcc_flags writes them: sh reads them as they are. */
		if (!strncmp(cmd.v[k], "--generate-code=", 16))
			sb_puts(sb, cmd.v[k]);
		else
			ninja_arg(sb, cmd.v[k]);
	}
	sb_puts(sb, shared ? "\n\n" : "\n");
	if (shared) {
		g->pch = g->sb;
		g->sb = rest;
	}
}

/* One source of a torch-kind extension, as the preprocessor decided: shared by every Python
 * of (toolkit, torch, flags), or per cell, with a precompiled header forced first where that
 * keeps its meaning: torch/all.h, one .gch per (toolkit, torch, flags less the Python include
 * dir) that the Pythons of a flag set share (it holds no Python header), or torch/extension.h,
 * one per cell (torch_plan.c says which pays). Appends its object to objs. */
static void emit_torch_source(struct gen *g, const struct cell *c, const struct extension_cfg *x,
                              const struct torch_plan_ext *te, size_t i,
                              const struct torch_flags *tf, const struct cell_paths *cp,
                              struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	const char *src = x->files.v[i];
	if (gen_is_cu(src)) {
		emit_torch_cu(g, c, x, te, i, tf, cp, objs);
		return;
	}
	const struct binding_decision *bd = &te->srcs[i];
	bool shared = !bd->python;
	bool pch = bd->pch == PCH_USE;
	enum bind_mode mode = shared                  ? BIND_SHARED
	                      : pch && te->pch_shared ? BIND_CELL_PCH
	                                              : BIND_CELL;
	struct strv flags = {0};
	/* Proven Python-free: the stand-ins first, as in the proof. */
	if (shared)
		torchplan_shared_flags(g->a, g->cfg, x, c, tp->tk, tf, g->proj, te->link,
		                       bd->pyfree == PYFREE_PROVEN ? g->tp->standins : NULL, false,
		                       &flags);
	else
		torchplan_binding_flags(g->a, g->cfg, x, c, tp->tk, tf, g->proj, te->link, mode,
		                        &flags);
	if (shared) {
		const char *obj =
		    torchplan_shared_obj(g->a, tp, g->cxx, x->module, src, false, &flags);
		if (!claim_object(g, obj, objs))
			return;
		struct strv cmd = {0};
		torchplan_compile_argv(g->a, tp, g->cxx, g->proj, src, false, &flags, &cmd);
		if (emit_proof_object(
		        g, bd, obj,
		        arena_printf(g->a, "shared CUDA %s torch %s", tp->cuda, te->torch), &cmd))
			return;
		long cell = g->cell;
		g->cell = -1; /* no cell's step: the report shows it apart */
		gen_emit_build(g, obj, "cc", gen_from_build(g, src), "cc shared");
		g->cell = cell;
		sb_printf(sb, "\n  what = shared CUDA %s torch %s\n  cc = ", tp->cuda, te->torch);
		ninja_arg(sb, torchplan_cxx(tp, g->cxx));
		sb_puts(sb, "\n  flags =");
		gen_emit_flags(g, NULL, &flags, false);
		sb_puts(sb, "\n");
		return;
	}
	char *obj = arena_printf(g->a, "%s/obj/%s/%s.o", cp->dir, x->module, src);
	strv_push(g->a, objs, obj);
	const char *stub = NULL;
	if (pch && te->pch_shared) {
		struct strv pch_flags = {0};
		torchplan_binding_flags(g->a, g->cfg, x, c, tp->tk, tf, g->proj, te->link, BIND_PCH,
		                        &pch_flags);
		long cell = g->cell;
		g->cell = -1; /* the shared .gch is no cell's step */
		stub = emit_pch(
		    g, tp,
		    arena_printf(g->a, "shared/cu%d%d-%s/pch/%s", tp->tk->major, tp->tk->minor,
		                 shared_key(g, tp, &pch_flags), x->module),
		    "torch/all.h",
		    arena_printf(g->a, "shared CUDA %s torch %s", tp->cuda, te->torch), &pch_flags);
		g->cell = cell;
	} else if (pch) {
		stub = emit_pch(g, tp, arena_printf(g->a, "%s/pch/%s", cp->dir, x->module),
		                "torch/extension.h", c->id, &flags);
	}
	gen_emit_build(g, obj, stub ? "cc_pch" : "cc", gen_from_build(g, src), "cc binding");
	if (stub) {
		sb_puts(sb, " | ");
		ninja_path(sb, arena_printf(g->a, "%s.gch", stub));
	}
	sb_printf(sb, "\n  what = %s\n  cc = ", c->id);
	ninja_arg(sb, torchplan_cxx(tp, g->cxx));
	sb_puts(sb, "\n  flags =");
	if (stub) {
		sb_puts(sb, " -include ");
		ninja_arg(sb, stub);
		sb_puts(sb, " -Winvalid-pch -fpch-preprocess");
	}
	gen_emit_flags(g, NULL, &flags, false);
	sb_puts(sb, "\n");
}

/* Source i of extension x compiled for cell c by the host compiler with the cell's Python
 * headers (any source of a C or pybind11 extension that is no kernel, a .c of a torch one).
 * Appends its object to objs. */
static void emit_cell_source(struct gen *g, const struct cell *c, const struct extension_cfg *x,
                             size_t i, const struct torch_flags *tf, const struct cell_paths *cp,
                             struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	const char *src;
	const char *in = gen_source_input(g, x->files.v[i], false, &src);
	/* Per extension: two extensions may compile one source with other flags. */
	char *obj = arena_printf(g->a, "%s/obj/%s/%s.o", cp->dir, x->module, src);
	strv_push(g->a, objs, obj);
	gen_emit_build(g, obj, "cc", in, "cc binding");
	sb_printf(sb, "\n  what = %s\n  cc = ", c->id);
	ninja_arg(sb, plainflags_cc(tp->tk, x, src, g->cc, g->cxx));
	struct strv flags = {0};
	plainflags_host(g->a, g->cfg, x, c, tp->tk, tf, g->proj, src, false, &flags);
	sb_puts(sb, "\n  flags =");
	gen_emit_flags(g, NULL, &flags, false);
	sb_puts(sb, "\n");
}

/* Source i of extension x (of another kind than torch) whose include closure holds no Python
 * header (a kernel the extension lists itself): compiled once per (toolkit, flags) into
 * shared/, for every Python of the toolkit (plainflags.h). Appends its object to objs. */
static void emit_plain_shared(struct gen *g, const struct cell *c, const struct extension_cfg *x,
                              size_t i, const struct torch_flags *tf, struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	const char *src;
	const char *in = gen_source_input(g, x->files.v[i], false, &src);
	const char *cc = plainflags_cc(tp->tk, x, src, g->cc, g->cxx);
	struct strv flags = {0};
	plainflags_host(g->a, g->cfg, x, c, tp->tk, tf, g->proj, src, true, &flags);
	const char *obj = torchplan_shared_obj(g->a, tp, cc, x->module, src, false, &flags);
	if (!claim_object(g, obj, objs))
		return;
	long cell = g->cell;
	g->cell = -1; /* no cell's step: the report shows it apart */
	gen_emit_build(g, obj, "cc", in, "cc shared");
	g->cell = cell;
	sb_printf(sb, "\n  what = shared CUDA %s\n  cc = ", tp->cuda);
	ninja_arg(sb, cc);
	sb_puts(sb, "\n  flags =");
	gen_emit_flags(g, NULL, &flags, false);
	sb_puts(sb, "\n");
}

/* The link of extension x's module for cell c from objs and the kernel archive. Returns the
 * module's path in the build dir; *modpath: its path inside the package tree. */
static const char *emit_module_link(struct gen *g, const struct cell *c,
                                    const struct extension_cfg *x, const struct torch_flags *tf,
                                    const struct archive_paths *ap, const struct cell_paths *cp,
                                    const struct strv *objs, const char **modpath)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	*modpath = buildgraph_module_path(g->a, x, c);
	const char *mod = arena_printf(g->a, "%s/lib/%s", cp->dir, *modpath);
	gen_emit_build(g, mod, "link", NULL, "link");
	ninja_paths(sb, objs);
	/* A project without kernel sources (a plain C extension) has no archive. */
	if (ap->archive) {
		sb_puts(sb, " | ");
		ninja_path(sb, ap->archive);
	}
	sb_puts(sb, "\n  ld = ");
	ninja_arg(sb, gen_host_cc(g, tp, true));
	sb_puts(sb, "\n  ldflags =");
	if (ap->archive) {
		sb_puts(sb, " -Wl,--whole-archive ");
		ninja_arg(sb, ap->archive);
		sb_puts(sb, " -Wl,--no-whole-archive");
	}
	if (tf->cudart_shared) {
		/* torch loads the CUDA runtime: -lcudart comes with torch's libraries. */
	} else if (g->cfg->kernels.cudart == CUDART_STATIC) {
		sb_putc(sb, ' ');
		ninja_arg(sb, os_join(g->a, tp->tk->lib_dir, "libcudart_static.a"));
	} else {
		sb_putc(sb, ' ');
		ninja_arg(sb, arena_printf(g->a, "-L%s", tp->tk->lib_dir));
		sb_puts(sb, " -lcudart");
	}
	/* Keep the archive's and cudart's symbols out of the dynamic table: the module
	 * exports PyInit_* and nothing else; -s drops build-machine paths and symbols. */
	sb_puts(sb, " -Wl,--exclude-libs,ALL -Wl,-s -Wl,-O1 -lpthread -ldl -lrt");
	gen_emit_flags(g, NULL, &tf->ldflags, false);
	gen_emit_flags(g, NULL, &x->ldflags, false);
	gen_emit_flags(g, "-l", &x->libraries, false);
	sb_puts(sb, "\n");
	return mod;
}

/* Extension e of cell c: its objects and its module. Appends the module to modules and its
 * stage arguments (--file MODULE=PATH) to stage_args; the first module is cp->module. */
void gen_emit_extension(struct gen *g, const struct cell *c, size_t e,
                        const struct archive_paths *ap, struct cell_paths *cp, struct strv *modules,
                        struct strv *stage_args)
{
	const struct extension_cfg *x = &g->cfg->extensions[e];
	const struct torch_flags *tf =
	    &g->r->ext_flags[(size_t)(c - g->plan->cells) * g->cfg->n_extensions + e];
	struct strv objs = {0};
	bool torch = x->kind == EXT_TORCH;
	/* Another kind's decisions: its .cu by nvcc (shared, or per Python where it includes
	 * Python's headers), a .c/.cpp without Python's headers shared, the rest per Python. */
	const struct torch_plan_ext *te = !torch                 ? torchplan_find_plain(g->tp, e, c)
	                                  : c->py->torch.version ? torchplan_find(g->tp, e, c)
	                                                         : NULL;
	for (size_t i = 0; i < x->files.n; i++) {
		const char *f = x->files.v[i];
		if (te && (torch ? !gen_is_c(f) : gen_is_cu(f)))
			emit_torch_source(g, c, x, te, i, tf, cp, &objs);
		else if (te && !torch && !te->srcs[i].python)
			emit_plain_shared(g, c, x, i, tf, &objs);
		else
			emit_cell_source(g, c, x, i, tf, cp, &objs);
	}
	const char *modpath;
	const char *mod = emit_module_link(g, c, x, tf, ap, cp, &objs, &modpath);
	if (!cp->module)
		cp->module = mod;
	strv_push(g->a, modules, mod);
	strv_push(g->a, stage_args, "--file");
	strv_push(g->a, stage_args, arena_printf(g->a, "%s=%s", mod, modpath));
}
