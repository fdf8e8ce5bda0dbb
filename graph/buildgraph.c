/* buildgraph.c: the plan as build.ninja. Kernels are compiled once per (toolkit, flags) into
 * an archive that every Python cell of that toolkit links; only the binding stub is compiled
 * per Python. */
#include "graph/buildgraph.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "base/path.h"
#include "kernels/buildflags.h"
#include "kernels/kernels_key.h"
#include "standards/json_values.h"
#include "standards/ninja.h"
#include "standards/toml.h"
#include "torch/torch_plan.h"
#include "torch/torchflags.h"

char *buildgraph_limited_api(struct arena *a, const char *python)
{
	int minor = atoi(python + 2);
	return arena_printf(a, "0x03%02X0000", minor);
}

/* Returns the extension module's file name for a cell ("_C.abi3.so", "_C.cpython-312-...so")
 * and its path inside the package tree ("tinyraster/_C.abi3.so"). */
static const char *buildgraph_module_path(struct arena *a, const struct extension_cfg *x,
                                          const struct cell *c)
{
	struct strbuf sb = {0};
	for (const char *p = x->module; *p; p++)
		sb_putc(&sb, *p == '.' ? '/' : *p);
	sb_puts(&sb, c->abi3 ? ".abi3.so" : x->no_abi_suffix ? ".so" : c->py->ext_suffix);
	return sb_to_arena(&sb, a);
}

static bool is_cxx(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && (!strcmp(dot, ".cpp") || !strcmp(dot, ".cc") || !strcmp(dot, ".cxx"));
}

static bool is_c(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && !strcmp(dot, ".c");
}

static bool is_cu(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && !strcmp(dot, ".cu");
}

/* Returns sb's text with ins's inserted at offset at (both buffers released). */
static char *splice(struct arena *a, struct strbuf *sb, size_t at, struct strbuf *ins)
{
	struct strbuf out = {0};
	sb_add(&out, sb->buf ? sb->buf : "", at);
	if (ins->len)
		sb_add(&out, ins->buf, ins->len);
	if (sb->len > at)
		sb_add(&out, sb->buf + at, sb->len - at);
	sb_release(sb);
	sb_release(ins);
	return sb_to_arena(&out, a);
}

/* The renderer's state: the resolved plan it reads, the text it writes and the files (stubs,
 * PCH headers, the stage list) the graph needs in the build dir, which it names but does not
 * write. */
struct gen {
	struct arena *a;
	const struct graph_plan *r;
	const struct plan *plan;
	const struct config *cfg;
	const struct build_opts *o;
	struct strbuf sb;
	/* The precompiled headers' rules and edges, placed before every other edge: ninja starts
	 * ready edges in the order of the file, and a .gch (minutes) heads the longest chain
	 * (the .gch, the sources that use it, the link), so it starts first, beside the kernels,
	 * instead of after them with a job idle. */
	struct strbuf pch;
	const char *proj; /* the project dir relative to the build dir */
	const char *bdir; /* the build dir, absolute */
	const char *cc, *cxx;
	const struct torch_plan *tp; /* the preprocessor's torch decisions */
	struct strv emitted;         /* shared objects and PCH rules already in the graph */
	struct strv file_paths;      /* build-dir files the graph needs (absolute) */
	struct graph_step *steps;    /* the step table (build_graph.steps) */
	size_t n_steps, cap_steps;
	long toolkit, cell;     /* the row the edges written now belong to (-1: none) */
	struct strv file_texts; /* parallel: their contents */
	bool stage_list;        /* BUILDGRAPH_STAGE_FILES is among them */
};

/* Records a file of the build dir (absolute path) that the graph needs, once. */
static void need_file(struct gen *g, const char *path, const char *text)
{
	if (strv_contains(&g->file_paths, path))
		return;
	strv_push(g->a, &g->file_paths, path);
	strv_push(g->a, &g->file_texts, text);
}

/* Project-relative path as seen from the build dir. */
static char *from_build(struct gen *g, const char *rel)
{
	if (rel[0] == '/')
		return arena_strdup(g->a, rel);
	if (!strcmp(g->proj, "."))
		return arena_strdup(g->a, rel);
	return os_join(g->a, g->proj, rel);
}

/* The path a build line compiles for src: src itself, or a stub in the build dir that
 * #includes it when src's name cannot reach nvcc or ninja verbatim (a$b.cu, "c d.cu", a|b.c).
 * *name is what stands for src in object paths and seeds. The stub is rewritten only when its
 * text changes (buildgraph_generate writes it), so an unchanged source is not rebuilt. */
static const char *source_input(struct gen *g, const char *src, bool nvcc, const char **name)
{
	const char *path = from_build(g, src);
	*name = src;
	if (!ninja_source_needs_stub(path, nvcc))
		return path;
	const char *stub = ninja_stub_name(g->a, src);
	if (ninja_source_needs_stub(src, nvcc))
		*name = stub;
	char *abs = os_join(g->a, g->bdir, stub);
	char *dir = arena_strndup(g->a, abs, (size_t)(strrchr(abs, '/') - abs));
	const char *target = src[0] == '/' ? src : os_join(g->a, g->cfg->project_dir, src);
	need_file(g, abs,
	          arena_printf(g->a, "#include \"%s\"\n", path_relative(g->a, dir, target)));
	return stub;
}

static void emit_header(struct gen *g)
{
	struct strbuf *sb = &g->sb;
	if (g->cfg->config_file) {
		const char *base = strrchr(g->cfg->config_file, '/');
		sb_printf(sb, "# Generated by cuwheel " CUWHEEL_VERSION " from %s; do not edit.\n",
		          base ? base + 1 : g->cfg->config_file);
	} else {
		sb_puts(sb, "# Generated by cuwheel " CUWHEEL_VERSION
		            " from pyproject.toml; do not edit.\n");
	}
	sb_puts(sb, ""
	            "# Regenerated by every `cuwheel build`; ninja executes it.\n"
	            "ninja_required_version = 1.10\n\n");
	const char *launcher = g->o->ccache ? g->o->ccache : "";
	sb_puts(sb, "launcher =");
	if (*launcher) {
		sb_putc(sb, ' ');
		ninja_arg(sb, launcher);
	}
	sb_puts(sb, "\ncuwheel = ");
	ninja_arg(sb, g->o->cuwheel);
	if (g->cfg->config_file) {
		/* The steps read the same config beside the project (--config FILE). */
		sb_puts(sb, " --config ");
		ninja_arg(sb, g->cfg->config_file);
	}
	sb_puts(sb, "\nproject = ");
	ninja_arg(sb, g->proj);
	sb_puts(sb, "\n\n"
	            "rule nvcc\n"
	            "  command = $launcher $nvcc $flags -MD -MF $out.d -c $in -o $out\n"
	            "  depfile = $out.d\n"
	            "  deps = gcc\n"
	            "  description = kernels CUDA $cuda: nvcc $in\n\n"
	            "rule cc\n"
	            "  command = $launcher $cc $flags -MD -MF $out.d -c $in -o $out\n"
	            "  depfile = $out.d\n"
	            "  deps = gcc\n"
	            "  description = $what: cc $in\n\n"
	            "rule ar\n"
	            "  command = rm -f $out && ar qcD $out $in && ranlib -D $out\n"
	            "  description = ar $out\n\n"
	            "rule link\n"
	            "  command = $ld -shared -o $out $in $ldflags\n"
	            "  description = link $out\n\n"
	            "rule cuwheel\n"
	            "  command = $cuwheel -C $project $args\n"
	            "  description = $desc\n\n");
}

static char *xcompiler(struct arena *a, const char *flag)
{
	return toolchain_xcompiler(a, flag);
}

static void emit_flags(struct gen *g, const char *prefix, const struct strv *v, bool xcompiler_form)
{
	for (size_t i = 0; i < v->n; i++) {
		sb_putc(&g->sb, ' ');
		if (xcompiler_form)
			ninja_arg(&g->sb, xcompiler(g->a, v->v[i]));
		else if (prefix)
			ninja_arg(&g->sb, arena_printf(g->a, "%s%s", prefix, v->v[i]));
		else
			ninja_arg(&g->sb, v->v[i]);
	}
}

static void emit_includes(struct gen *g, const struct strv *dirs)
{
	for (size_t i = 0; i < dirs->n; i++) {
		sb_putc(&g->sb, ' ');
		ninja_arg(&g->sb, arena_printf(g->a, "-I%s", from_build(g, dirs->v[i])));
	}
}

/* Starts the edge "build OUT: RULE IN" (without IN when in is NULL) and enters it in the step
 * table as step (NULL: a phony edge, no step) of the row being written. */
static void emit_build(struct gen *g, const char *out, const char *rule, const char *in,
                       const char *step)
{
	if (step) {
		if (g->n_steps == g->cap_steps) {
			size_t cap = g->cap_steps ? 2 * g->cap_steps : 64;
			g->steps =
			    arena_realloc(g->a, g->steps, g->cap_steps, cap, sizeof(*g->steps));
			g->cap_steps = cap;
		}
		g->steps[g->n_steps++] = (struct graph_step){
		    .output = out, .name = step, .toolkit = g->toolkit, .cell = g->cell};
	}
	sb_puts(&g->sb, "build ");
	ninja_path(&g->sb, out);
	sb_printf(&g->sb, ": %s", rule);
	if (in) {
		sb_putc(&g->sb, ' ');
		ninja_path(&g->sb, in);
	}
}

/* Writes opt (" --stamp ") and then value as one argument. */
static void emit_opt(struct gen *g, const char *opt, const char *value)
{
	sb_puts(&g->sb, opt);
	ninja_arg(&g->sb, value);
}

/* A path of the build dir, as the cuwheel steps (run with -C project) are given it. */
static char *build_path(struct gen *g, const char *rel)
{
	return os_join(g->a, g->cfg->build_dir, rel);
}

/* Sources are named relative to the build dir, so the map is too: an absolute one would differ
 * between clones and defeat a shared ccache (which hashes -Xcompiler values as written). */
static char *prefix_map(struct gen *g)
{
	return arena_printf(g->a, "-ffile-prefix-map=%s=.", g->proj);
}

/* The nvcc options that depend on the toolkit: each only where its nvcc knows it (nvcc
 * --help, cudafe++), the host compiler it accepts, and the random seed. nvcc's own
 * -frandom-seed also fixes the module id cudafe++ puts into internal-linkage names
 * (`_INTERNAL_<path hash>_<len>_<file>_<module id>`) when the translation unit has no
 * non-template external function to name it after; without it that id holds cudafe++'s pid,
 * so two builds differ. nvcc hands the seed on to the host compiler. nvcc 11.8 and 12.4 lack
 * the option: the seed reaches only the host compiler (-Xcompiler), and such objects are not
 * reproducible (docs/manual/build-dir.md). */
static void emit_toolkit_flags(struct gen *g, const struct toolkit_plan *tp, const char *src,
                               int threads)
{
	struct strv v = {0};
	toolchain_nvcc_args(g->a, tp->tk->nvcc_lacks, tp->tk->host.ccbin ? tp->tk->host.cxx : NULL,
	                    src, threads, &v);
	emit_flags(g, NULL, &v, false);
}

/* The host compiler of toolkit tp's kernels and bindings (C++ when cxx). */
static const char *host_cc(const struct gen *g, const struct toolkit_plan *tp, bool cxx)
{
	if (!tp->tk->host.ccbin)
		return cxx ? g->cxx : g->cc;
	return cxx ? tp->tk->host.cxx : tp->tk->host.cc;
}

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
		n_cu += is_cu(k->files.v[i]);
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

/* The variables of a .cu kernel's nvcc edge (src: its name in object paths and seeds). li:
 * with device line info, the project's include dirs by absolute path. */
static void emit_kernel_nvcc(struct gen *g, const struct toolkit_plan *tp, const char *src,
                             bool torch, const struct torch_flags *ktf, int threads, bool li)
{
	struct strbuf *sb = &g->sb;
	const struct kernels_cfg *k = &g->cfg->kernels;
	sb_puts(sb, "\n  cuda = ");
	sb_puts(sb, tp->cuda);
	sb_puts(sb, "\n  nvcc = ");
	ninja_arg(sb, tp->tk->nvcc);
	/* Kernels that include torch headers take BuildExtension's order (-std
	 * last, torch's flags around the project's: torchflags.h). */
	sb_puts(sb, torch ? "\n  flags = -O3 -Xcompiler=-fPIC "
	                    "-Xcompiler=-fvisibility=hidden "
	                  : "\n  flags = -O3 -std=c++17 -Xcompiler=-fPIC "
	                    "-Xcompiler=-fvisibility=hidden ");
	ninja_arg(sb, xcompiler(g->a, prefix_map(g)));
	if (li) {
		sb_putc(sb, ' ');
		ninja_arg(sb, xcompiler(g->a, arena_printf(g->a, "-ffile-prefix-map=%s=.",
		                                           g->cfg->project_dir)));
	}
	emit_toolkit_flags(g, tp, src, threads);
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
			const char *dir = k->include_dirs.v[d];
			sb_putc(sb, ' ');
			ninja_arg(sb, arena_printf(g->a, "-I%s",
			                           dir[0] == '/'
			                               ? dir
			                               : os_join(g->a, g->cfg->project_dir, dir)));
		}
	else
		emit_includes(g, &k->include_dirs);
	emit_flags(g, NULL, &ktf->incs, false);
	emit_flags(g, "-D", &k->defines, false);
	emit_flags(g, NULL, &ktf->nvcc_common, false);
	emit_flags(g, NULL, &k->host_flags, true);
	emit_flags(g, NULL, &k->nvcc_flags, false);
	emit_flags(g, NULL, &ktf->post, false);
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
	ninja_arg(sb, host_cc(g, tp, is_cxx(src)));
	sb_puts(sb, "\n  flags = -O2 -fPIC -fvisibility=hidden ");
	ninja_arg(sb, prefix_map(g));
	if (g->tp->kernels_pyfree) {
		sb_putc(sb, ' ');
		ninja_arg(sb, arena_printf(g->a, "-I%s", g->tp->standins));
	}
	emit_includes(g, &k->include_dirs);
	if (is_cxx(src))
		emit_flags(g, NULL, &ktf->incs, false);
	sb_putc(sb, ' ');
	ninja_arg(sb, arena_printf(g->a, "-I%s", tp->tk->include_dir));
	emit_flags(g, "-D", &k->defines, false);
	emit_flags(g, NULL, &k->host_flags, false);
	if (is_cxx(src))
		emit_flags(g, NULL, cpp_post, false);
	struct strv hf = {0};
	buildflags_host(g->a, g->cfg, tpy ? &tpy->torch : NULL, true, &hf);
	emit_flags(g, NULL, &hf, false);
}

/* With rdc = true, the device link of the archive's objects: appends dlink.o to objs. */
static void emit_kernel_dlink(struct gen *g, const struct toolkit_plan *tp,
                              const struct archive_paths *ap, struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	char *dlink = arena_printf(g->a, "%s/obj/dlink.o", ap->dir);
	emit_build(g, dlink, "link", NULL, "link dlink.o");
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
static void emit_archive(struct gen *g, const struct toolkit_plan *tp, struct archive_paths *ap)
{
	struct strbuf *sb = &g->sb;
	const struct kernels_cfg *k = &g->cfg->kernels;
	const struct graph_ktorch *kt = &g->r->ktorch[tp - g->plan->toolkits];
	const struct interp *tpy = kt->py;
	ap->key =
	    kernels_archive_key(g->a, g->cfg, tp, host_cc(g, tp, false), tpy ? &tpy->torch : NULL);
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
		const char *in = source_input(g, k->files.v[i], is_cu(k->files.v[i]), &src);
		/* Each object in its own directory: nvcc's -objtemp puts its temporaries there,
		 * and sources sharing a basename (texture.cu, texture.cpp) never collide. */
		char *obj = arena_printf(g->a, "%s/obj/%s/%s.o", ap->dir, src,
		                         strrchr(src, '/') ? strrchr(src, '/') + 1 : src);
		strv_push(g->a, &objs, obj);
		/* Device line info (-lineinfo, -G) records the source as cicc saw it, made
		 * absolute against the working directory (the build dir): name the project's
		 * files by absolute path there, so every build dir of a project embeds the same
		 * bytes (ccache still shares: CCACHE_BASEDIR is the project). */
		bool li = is_cu(src) && kernels_line_info(k);
		emit_build(g, obj, is_cu(src) ? "nvcc" : "cc",
		           li && strcmp(in, from_build(g, k->files.v[i])) == 0
		               ? os_join(g->a, g->cfg->project_dir, k->files.v[i])
		               : in,
		           arena_printf(g->a, "%s %s", is_cu(src) ? "nvcc" : "cc", src));
		if (is_cu(src))
			emit_kernel_nvcc(g, tp, src, tpy != NULL, &kt->tf, threads, li);
		else
			emit_kernel_cc(g, tp, src, tpy, &kt->tf, &kt->cpp_post);
		sb_puts(sb, "\n");
	}
	ap->n_objects = objs.n;
	if (k->rdc)
		emit_kernel_dlink(g, tp, ap, &objs);
	emit_build(g, ap->archive, "ar", NULL, "ar");
	ninja_paths(sb, &objs);
	sb_puts(sb, "\n\n");
}

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
static const char *emit_pch(struct gen *g, const char *dir, const char *header, const char *what,
                            const struct strv *flags)
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
	need_file(g, os_join(g->a, g->bdir, stub), arena_printf(g->a, "#include <%s>\n", header));
	struct strbuf *sb = &g->sb;
	emit_build(g, gch, "pch", stub, arena_printf(g->a, "pch %s", header));
	sb_printf(sb, "\n  what = %s\n  header = %s\n  cc = ", what, header);
	ninja_arg(sb, g->cxx);
	sb_puts(sb, "\n  flags =");
	emit_flags(g, NULL, flags, false);
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
	emit_build(g, obj, "proof_obj", bd->obj, "copy shared");
	g->cell = cell;
	sb_puts(&g->sb, "\n  what = ");
	ninja_arg(&g->sb, what);
	/* The command that made it (read by nothing: for whoever reads this file). */
	sb_puts(&g->sb, "\n  compiled_by =");
	emit_flags(g, NULL, cmd, false);
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
	/* Device line info: the project by absolute path, as for the kernels. */
	bool li = torchplan_line_info(&g->cfg->kernels);
	const char *proj = li ? g->cfg->project_dir : g->proj;
	struct strv flags = {0};
	/* Proven Python-free: the stand-ins first, as in the proof. */
	if (shared)
		torchplan_shared_flags(g->a, g->cfg, x, c, tp->tk, tf, proj, te->link,
		                       bd->pyfree == PYFREE_PROVEN ? g->tp->standins : NULL, true,
		                       &flags);
	else
		torchplan_cu_flags(g->a, g->cfg, x, c, tf, proj, te->link, BIND_CELL, &flags);
	const char *name;
	const char *in = source_input(g, src, true, &name);
	if (li && !strcmp(in, from_build(g, src)))
		in = src[0] == '/' ? src : os_join(g->a, g->cfg->project_dir, src);
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	/* Each object in its own directory: -objtemp puts nvcc's temporaries there. */
	const char *obj =
	    shared ? torchplan_shared_obj(g->a, tp, g->cxx, x->module, name, true, &flags)
	           : arena_printf(g->a, "%s/obj/%s/%s/%s.o", cp->dir, x->module, name, base);
	if (!claim_object(g, obj, objs))
		return;
	struct strv cmd = {0};
	torchplan_compile_argv(g->a, tp, g->cxx, proj, name, true, &flags, &cmd);
	if (shared && emit_proof_object(
	                  g, bd, obj,
	                  arena_printf(g->a, "shared CUDA %s torch %s", tp->cuda, te->torch), &cmd))
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
	emit_build(g, obj, "nvcc", in, shared ? "nvcc shared" : "nvcc binding");
	g->cell = cell;
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
	if (is_cu(src)) {
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
		emit_build(g, obj, "cc", from_build(g, src), "cc shared");
		g->cell = cell;
		sb_printf(sb, "\n  what = shared CUDA %s torch %s\n  cc = ", tp->cuda, te->torch);
		ninja_arg(sb, g->cxx);
		sb_puts(sb, "\n  flags =");
		emit_flags(g, NULL, &flags, false);
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
		    g,
		    arena_printf(g->a, "shared/cu%d%d-%s/pch/%s", tp->tk->major, tp->tk->minor,
		                 shared_key(g, tp, &pch_flags), x->module),
		    "torch/all.h",
		    arena_printf(g->a, "shared CUDA %s torch %s", tp->cuda, te->torch), &pch_flags);
		g->cell = cell;
	} else if (pch) {
		stub = emit_pch(g, arena_printf(g->a, "%s/pch/%s", cp->dir, x->module),
		                "torch/extension.h", c->id, &flags);
	}
	emit_build(g, obj, stub ? "cc_pch" : "cc", from_build(g, src), "cc binding");
	if (stub) {
		sb_puts(sb, " | ");
		ninja_path(sb, arena_printf(g->a, "%s.gch", stub));
	}
	sb_printf(sb, "\n  what = %s\n  cc = ", c->id);
	ninja_arg(sb, g->cxx);
	sb_puts(sb, "\n  flags =");
	if (stub) {
		sb_puts(sb, " -include ");
		ninja_arg(sb, stub);
		sb_puts(sb, " -Winvalid-pch -fpch-preprocess");
	}
	emit_flags(g, NULL, &flags, false);
	sb_puts(sb, "\n");
}

/* Source i of extension x compiled for cell c by the host compiler with the cell's Python
 * headers (any source of a C or pybind11 extension, a .c of a torch one). Appends its object
 * to objs. */
static void emit_cell_source(struct gen *g, const struct cell *c, const struct extension_cfg *x,
                             size_t i, const struct torch_flags *tf, const struct cell_paths *cp,
                             struct strv *objs)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	bool cxx_kind = x->kind == EXT_TORCH || x->kind == EXT_PYBIND11;
	const char *src;
	const char *in = source_input(g, x->files.v[i], false, &src);
	bool cxx = is_cxx(src) || (cxx_kind && !is_c(src));
	/* Per extension: two extensions may compile one source with other flags. */
	char *obj = arena_printf(g->a, "%s/obj/%s/%s.o", cp->dir, x->module, src);
	strv_push(g->a, objs, obj);
	emit_build(g, obj, "cc", in, "cc binding");
	sb_printf(sb, "\n  what = %s\n  cc = ", c->id);
	ninja_arg(sb, host_cc(g, tp, cxx));
	sb_puts(sb, "\n  flags = -O2 -DNDEBUG -fPIC -fvisibility=hidden ");
	ninja_arg(sb, prefix_map(g));
	emit_includes(g, &x->include_dirs);
	sb_putc(sb, ' ');
	ninja_arg(sb, arena_printf(g->a, "-I%s", tp->tk->include_dir));
	sb_puts(sb, " -isystem ");
	ninja_arg(sb, c->py->include_dir);
	if (c->abi3 && !(cxx_kind && cxx)) /* C++ torch sources: in tf.cflags */
		sb_printf(sb, " -DPy_LIMITED_API=%s", buildgraph_limited_api(g->a, c->python));
	if (cxx_kind && cxx)
		emit_flags(g, NULL, &tf->cflags, false);
	emit_flags(g, "-D", &x->defines, false);
	struct strv hf = {0};
	buildflags_host(g->a, g->cfg, &c->py->torch, false, &hf);
	emit_flags(g, NULL, &hf, false);
	emit_flags(g, NULL, &x->cflags, false);
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
	emit_build(g, mod, "link", NULL, "link");
	ninja_paths(sb, objs);
	/* A project without kernel sources (a plain C extension) has no archive. */
	if (ap->archive) {
		sb_puts(sb, " | ");
		ninja_path(sb, ap->archive);
	}
	sb_puts(sb, "\n  ld = ");
	ninja_arg(sb, host_cc(g, tp, true));
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
	emit_flags(g, NULL, &tf->ldflags, false);
	emit_flags(g, NULL, &x->ldflags, false);
	emit_flags(g, "-l", &x->libraries, false);
	sb_puts(sb, "\n");
	return mod;
}

/* Extension e of cell c: its objects and its module. Appends the module to modules and its
 * stage arguments (--file MODULE=PATH) to stage_args; the first module is cp->module. */
static void emit_extension(struct gen *g, const struct cell *c, size_t e,
                           const struct archive_paths *ap, struct cell_paths *cp,
                           struct strv *modules, struct strv *stage_args)
{
	const struct extension_cfg *x = &g->cfg->extensions[e];
	const struct torch_flags *tf =
	    &g->r->ext_flags[(size_t)(c - g->plan->cells) * g->cfg->n_extensions + e];
	struct strv objs = {0};
	const struct torch_plan_ext *te = x->kind == EXT_TORCH && c->py->torch.version
	                                      ? torchplan_find(g->tp, e, c->py->torch.version)
	                                      : NULL;
	for (size_t i = 0; i < x->files.n; i++) {
		if (te && !is_c(x->files.v[i]))
			emit_torch_source(g, c, x, te, i, tf, cp, &objs);
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

/* The text of BUILDGRAPH_STAGE_FILES: the packages and the files they ship. */
static const char *stage_list_text(struct gen *g, const struct strv *pkgfiles)
{
	const struct config *cfg = g->cfg;
	struct strbuf lb = {0};
	sb_printf(&lb, "# cuwheel: the files the stage steps ship (packages%s)\n",
	          cfg->ship_hidden ? ", hidden files too" : "");
	for (size_t p = 0; p < cfg->packages.n; p++)
		sb_printf(&lb, "package %s\n", cfg->packages.v[p]);
	for (size_t k = 0; k < pkgfiles->n; k++)
		sb_printf(&lb, "file %s\n", pkgfiles->v[k]);
	return sb_to_arena(&lb, g->a);
}

/* Stage: the pure-Python packages plus the modules, in the tree the wheel will hold, under
 * stage; its stamp is the step's output. */
static void emit_stage(struct gen *g, const struct cell *c, const char *stage, const char *stamp,
                       const struct strv *modules, struct strv *stage_args)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	emit_build(g, stamp, "cuwheel", NULL, "stage");
	ninja_paths(sb, modules);
	const struct strv pkgfiles = g->r->pkgfiles;
	for (size_t p = 0; p < cfg->packages.n; p++) {
		if (p == 0 && cfg->ship_hidden)
			strv_push(g->a, stage_args, "--hidden");
		strv_push(g->a, stage_args, "--package");
		strv_push(g->a, stage_args, cfg->packages.v[p]);
	}
	/* The file list itself is an input: a file renamed (its mtime kept) or removed changes
	 * no input's mtime and no command, but changes the list, which is rewritten only when
	 * its content changes. */
	sb_puts(sb, " | " BUILDGRAPH_STAGE_FILES);
	for (size_t k = 0; k < pkgfiles.n; k++) {
		sb_putc(sb, ' ');
		ninja_path(sb, from_build(g, pkgfiles.v[k]));
	}
	if (!g->stage_list)
		need_file(g, os_join(g->a, g->bdir, BUILDGRAPH_STAGE_FILES),
		          stage_list_text(g, &pkgfiles));
	g->stage_list = true;
	sb_puts(sb, "\n  args = internal stage --out ");
	ninja_arg(sb, build_path(g, stage));
	emit_opt(g, " --stamp ", build_path(g, stamp));
	for (size_t i = 0; i < stage_args->n; i++) {
		sb_putc(sb, ' ');
		const char *arg = stage_args->v[i];
		/* Module sources are build-dir relative; the command runs with -C project. */
		if (i > 0 && !strcmp(stage_args->v[i - 1], "--file"))
			arg = arena_printf(g->a, "%s/%s", g->cfg->build_dir, arg);
		ninja_arg(sb, arg);
	}
	sb_printf(sb, "\n  desc = %s: stage\n", c->id);
}

/* Pack: the staged tree as cp->wheel. */
static void emit_pack(struct gen *g, const struct cell *c, struct cell_paths *cp, const char *stage,
                      const char *stamp)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	cp->wheel = arena_printf(g->a, "%s/%s", cp->dir, c->wheel);
	emit_build(g, cp->wheel, "cuwheel", stamp, "pack");
	sb_puts(sb, " | " BUILDGRAPH_PROJECT_JSON);
	if (cfg->project.readme_path) {
		sb_putc(sb, ' ');
		ninja_path(sb, from_build(g, cfg->project.readme_path));
	}
	for (size_t i = 0; i < cfg->project.license_files.n; i++) {
		sb_putc(sb, ' ');
		ninja_path(sb, from_build(g, cfg->project.license_files.v[i]));
	}
	sb_puts(sb, "\n  args = pack ");
	ninja_arg(sb, build_path(g, stage));
	emit_opt(g, " --project-json ", build_path(g, BUILDGRAPH_PROJECT_JSON));
	emit_opt(g, " --tag ", arena_printf(g->a, "%s-%s-%s", c->py_tag, c->abi_tag, c->platform));
	if (c->local)
		emit_opt(g, " --local ", c->local);
	else
		sb_puts(sb, " --no-local");
	if (c->torch)
		emit_opt(g, " --requires ",
		         torchflags_requirement(g->a, c->torch, c->torch_stable));
	sb_printf(sb, " --quiet --compression %d -o ", cfg->compression);
	ninja_arg(sb, build_path(g, cp->dir));
	sb_printf(sb, "\n  desc = %s: pack %s\n", c->id, c->wheel);
}

/* torch-compat: the packed wheel tried with each listed torch before it is placed, so that
 * with torch-requires = "tested" the range it proved goes into the one wheel dist/ receives.
 * Failures are the table's rows, not the step's. */
static void emit_compat(struct gen *g, const struct cell *c, struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	cp->compat = arena_printf(g->a, "%s/compat.json", cp->dir);
	emit_build(g, cp->compat, "cuwheel", cp->wheel, "torch-compat");
	sb_puts(sb, " | " BUILDGRAPH_TEST_CONTEXT "\n  args = internal compat ");
	ninja_arg(sb, build_path(g, cp->wheel));
	emit_opt(g, " --out ", build_path(g, cp->compat));
	emit_opt(g, " --context ", build_path(g, BUILDGRAPH_TEST_CONTEXT));
	sb_printf(sb, "\n  desc = %s: torch-compat\n", c->id);
}

/* Audit, stamp the platform tag, place the wheel in dist/ atomically. */
static void emit_finish(struct gen *g, const struct cell *c, struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	cp->final = arena_printf(g->a, "%s/final", cp->dir);
	emit_build(g, cp->final, "cuwheel", cp->wheel, "audit");
	if (cp->compat) {
		sb_puts(sb, " | ");
		ninja_path(sb, cp->compat);
	}
	sb_puts(sb, "\n  args = internal finish ");
	ninja_arg(sb, build_path(g, cp->wheel));
	emit_opt(g, " --dist ", cfg->dist_dir);
	emit_opt(g, " --stamp ", build_path(g, cp->final));
	if (tp->n_archs && cfg->kernels.files.n) /* no kernels: no device code to check */
		emit_opt(g, " --require-arch ",
		         cuda_arch_list_compact(g->a, tp->archs, tp->n_archs));
	/* What the wheel may hold at its root: the packages and the top-level modules. */
	for (size_t p = 0; p < cfg->packages.n; p++) {
		const char *base = strrchr(cfg->packages.v[p], '/');
		emit_opt(g, " --declare ", base ? base + 1 : cfg->packages.v[p]);
	}
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const char *m = cfg->extensions[e].module;
		if (m && !strchr(m, '.'))
			emit_opt(g, " --declare ", m);
	}
	if (cfg->audit.strict)
		sb_puts(sb, " --strict");
	if (c->torch_stable)
		sb_puts(sb, " --torch-stable");
	if (cfg->audit.min_manylinux)
		emit_opt(g, " --min-manylinux ", cfg->audit.min_manylinux);
	if (cp->compat && cfg->test.torch_requires_tested)
		emit_opt(g, " --torch-requires-from ", build_path(g, cp->compat));
	sb_printf(sb, "\n  desc = %s: audit\n", c->id);
}

/* The test step: the placed wheel installed and tested in a fresh venv of its Python(s). */
static void emit_test(struct gen *g, const struct cell *c, struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	cp->tested = arena_printf(g->a, "%s/tested", cp->dir);
	emit_build(g, cp->tested, "cuwheel", cp->final, "test");
	sb_puts(sb, "\n  args = internal test-cell ");
	ninja_arg(sb, build_path(g, cp->final));
	emit_opt(g, " --python ", c->abi3 ? "all" : c->python);
	emit_opt(g, " --stamp ", build_path(g, cp->tested));
	emit_opt(g, " --context ", build_path(g, BUILDGRAPH_TEST_CONTEXT));
	sb_printf(sb, "\n  desc = %s: test\n", c->id);
}

/* Every step of one cell: its extensions' objects and modules, stage, pack, torch-compat,
 * audit and test, and the phony target named for the cell. */
static void emit_cell(struct gen *g, const struct cell *c, const struct archive_paths *ap,
                      struct cell_paths *cp)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	cp->dir = arena_printf(g->a, "cells/%s", c->id);
	cp->target = c->id;
	sb_printf(sb, "# %s: Python %s (%s)\n", c->id, c->py->version, c->py->path);
	struct strv stage_args = {0};
	struct strv modules = {0};
	for (size_t e = 0; e < cfg->n_extensions; e++)
		emit_extension(g, c, e, ap, cp, &modules, &stage_args);
	char *stage = arena_printf(g->a, "%s/stage", cp->dir);
	char *stamp = arena_printf(g->a, "%s/stage.stamp", cp->dir);
	emit_stage(g, c, stage, stamp, &modules, &stage_args);
	emit_pack(g, c, cp, stage, stamp);
	if (g->o->run_tests && cfg->test.torch_compat.n && c->torch && !c->torch_stable)
		emit_compat(g, c, cp);
	emit_finish(g, c, cp);
	const char *last = cp->final;
	if (g->o->run_tests && cfg->test.command) {
		emit_test(g, c, cp);
		last = cp->tested;
	}
	emit_build(g, c->id, "phony", last, NULL);
	sb_puts(sb, "\n\n");
}

void buildgraph_render(struct arena *a, const struct graph_plan *r, struct build_graph *out)
{
	memset(out, 0, sizeof(*out));
	const struct plan *plan = r->plan;
	const struct config *cfg = plan->cfg;
	out->build_dir = r->build_dir;
	out->ninja_file = os_join(a, r->build_dir, "build.ninja");
	struct gen g = {.a = a,
	                .r = r,
	                .plan = plan,
	                .cfg = cfg,
	                .o = &r->o,
	                .proj = r->proj,
	                .bdir = r->build_dir,
	                .cc = r->cc,
	                .cxx = r->cxx,
	                .tp = &r->tp,
	                .toolkit = -1,
	                .cell = -1};
	emit_header(&g);
	size_t head_len = g.sb.len;
	out->archives = arena_calloc(a, plan->n_toolkits + 1, sizeof(*out->archives));
	out->cells = arena_calloc(a, plan->n_cells + 1, sizeof(*out->cells));
	size_t n_archives = 0, n_cells = 0, n_nvcc = 0;
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		if (!plan->toolkits[t].used || cfg->kernels.files.n == 0)
			continue;
		g.toolkit = (long)t;
		emit_archive(&g, &plan->toolkits[t], &out->archives[t]);
		g.toolkit = -1;
		n_archives++;
		n_nvcc += out->archives[t].n_objects;
	}
	for (size_t i = 0; i < plan->n_cells; i++) {
		const struct cell *c = &plan->cells[i];
		if (!c->selected || !c->buildable)
			continue;
		g.cell = (long)i;
		emit_cell(&g, c, &out->archives[c->toolkit], &out->cells[i]);
		g.cell = -1;
		strv_push(a, &out->targets, c->id);
		n_cells++;
	}
	sb_puts(&g.sb, "build kernels: phony");
	for (size_t t = 0; t < plan->n_toolkits; t++) {
		if (out->archives[t].archive) {
			sb_putc(&g.sb, ' ');
			ninja_path(&g.sb, out->archives[t].archive);
		}
	}
	sb_puts(&g.sb, "\nbuild all: phony");
	for (size_t i = 0; i < out->targets.n; i++) {
		sb_putc(&g.sb, ' ');
		ninja_path(&g.sb, out->targets.v[i]);
	}
	sb_puts(&g.sb, "\ndefault all\n");
	out->text = splice(a, &g.sb, head_len, &g.pch);
	out->files = g.file_paths;
	out->steps = g.steps;
	out->n_steps = g.n_steps;
	out->file_texts = g.file_texts;
	out->summary =
	    arena_printf(a, "%zu kernel archive%s (%zu objects), %zu cell%s", n_archives,
	                 n_archives == 1 ? "" : "s", n_nvcc, n_cells, n_cells == 1 ? "" : "s");
}

bool buildgraph_generate(struct arena *a, struct diag *d, const struct plan *plan,
                         const struct build_opts *o, struct build_graph *out)
{
	memset(out, 0, sizeof(*out));
	struct graph_plan r;
	if (!buildgraph_resolve(a, d, plan, o, &r))
		return false;
	/* What build.ninja cannot express is refused, named, before anything is rendered. */
	json_t *doc = buildgraph_plan_json(&r);
	if (doc &&
	    !buildgraph_plan_check(a, d, os_join(a, r.build_dir, BUILDGRAPH_PLAN_JSON), doc)) {
		json_decref(doc);
		return false;
	}
	buildgraph_render(a, &r, out);
	out->tentative = r.tp.tentative;
	for (size_t e = 0; e < r.tp.n_exts; e++)
		for (size_t i = 0; i < plan->cfg->extensions[r.tp.exts[e].ext].files.n; i++)
			out->per_python += r.tp.exts[e].srcs[i].python;
	char *json = doc ? json_dump_text(a, doc, JSON_INDENT(1)) : NULL;
	json_decref(doc);
	if (!json) {
		diag_path(d, DIAG_ERROR, out->build_dir, "cannot serialise the resolved plan");
		return false;
	}
	out->plan_json = arena_printf(a, "%s\n", json);
	/* Each written only when its text changed, so that what depends on it is not rebuilt. */
	for (size_t i = 0; i < out->files.n; i++) {
		const char *path = out->files.v[i];
		const char *text = out->file_texts.v[i];
		if (!os_mkdir_p(d, arena_strndup(a, path, (size_t)(strrchr(path, '/') - path))) ||
		    !os_write_if_changed(a, d, path, text, strlen(text), 0644))
			return false;
	}
	return true;
}
