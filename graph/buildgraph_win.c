/* buildgraph_win.c: the Windows build graph (see buildgraph_win.h): MSVC and nvcc command lines
 * for the win_amd64 cells, written as a ninja file plus the probe script that fills in the
 * runner's paths, and the export directory holding both with the sources. */
#include "graph/buildgraph_win.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "graph/buildgraph.h"
#include "standards/ninja.h"
#include "packager/stage.h"
#include "torch/torchflags.h"
#include "toolchain/toolchain.h"
#include "toolchain/win_probe.h"

/* torch.utils.cpp_extension (torch 2.11), its Windows code path, by name:
 * COMMON_MSVC_FLAGS, passed to cl.exe and, each through -Xcompiler, to nvcc. */
static const char *const torch_msvc_flags[] = {
    "/MD",     "/wd4819", "/wd4251", "/wd4244", "/wd4267", "/wd4275",
    "/wd4018", "/wd4190", "/wd4624", "/wd4067", "/wd4068", "/EHsc",
};
/* MSVC_IGNORE_CUDAFE_WARNINGS: each passed as -Xcudafe --diag_suppress=NAME. */
static const char *const msvc_cudafe_ignored[] = {
    "base_class_has_different_dll_interface",
    "field_without_dll_interface",
    "dll_interface_conflict_none_assumed",
    "dll_interface_conflict_dllexport_assumed",
};
/* CUDAExtension's libraries (c10, torch, torch_cpu, torch_python, cudart, c10_cuda,
 * torch_cuda), as MSVC names them. */
static const char *const torch_libs[] = {
    "c10.lib",    "torch.lib",    "torch_cpu.lib",  "torch_python.lib",
    "cudart.lib", "c10_cuda.lib", "torch_cuda.lib",
};

/* What setuptools' MSVC compiler passes to every extension (compile_options, ldflags_shared),
 * the baseline cpp_extension builds on. */
static const char *const setuptools_cflags[] = {"/O2", "/W3", "/GL", "/DNDEBUG", "/MD"};
static const char *const setuptools_ldflags[] = {"/INCREMENTAL:NO", "/LTCG", "/MANIFEST:EMBED,ID=2",
                                                 "/MANIFESTUAC:NO"};

bool wingraph_cell(const struct cell *c)
{
	return c->selected && strcmp(c->platform, "win_amd64") == 0;
}

const char *wingraph_module_path(struct arena *a, const struct extension_cfg *x,
                                 const struct cell *c)
{
	struct strbuf sb = {0};
	for (const char *p = x->module; *p; p++)
		sb_putc(&sb, *p == '.' ? '/' : *p);
	if (c->abi3)
		sb_puts(&sb, ".pyd");
	else
		sb_printf(&sb, ".%s-win_amd64.pyd", c->abi_tag);
	return sb_to_arena(&sb, a);
}

struct wgen {
	struct arena *a;
	struct diag *d;
	const struct plan *plan;
	const struct config *cfg;
	struct strbuf sb;
	bool failed;
};

/* Appends one argument for a Windows command line (CreateProcess, parsed by the MS C
 * runtime's rules): quoted when it holds a space, a tab or a quote; then '$' doubled for
 * ninja. */
static void win_arg(struct strbuf *sb, const char *arg)
{
	struct strbuf q = {0};
	if (*arg && !strpbrk(arg, " \t\"")) {
		sb_puts(&q, arg);
	} else {
		sb_putc(&q, '"');
		size_t bs = 0;
		for (const char *p = arg;; p++) {
			if (*p == '\\') {
				bs++;
				continue;
			}
			/* Backslashes before a quote (or the closing one) are doubled. */
			size_t n = (*p == '"' || !*p) ? 2 * bs : bs;
			for (size_t i = 0; i < n; i++)
				sb_putc(&q, '\\');
			bs = 0;
			if (!*p)
				break;
			if (*p == '"')
				sb_putc(&q, '\\');
			sb_putc(&q, *p);
		}
		sb_putc(&q, '"');
	}
	for (size_t i = 0; i < q.len; i++) {
		if (q.buf[i] == '$')
			sb_putc(sb, '$');
		sb_putc(sb, q.buf[i]);
	}
	sb_release(&q);
}

/* " ARG" */
static void win_arg_sp(struct strbuf *sb, const char *arg)
{
	sb_putc(sb, ' ');
	win_arg(sb, arg);
}

/* "130" for "13.0"; "312" for "3.12". */
static char *nodot(struct arena *a, const char *v)
{
	struct strbuf sb = {0};
	for (; *v; v++)
		if (*v != '.')
			sb_putc(&sb, *v);
	return sb_to_arena(&sb, a);
}

/* The probe's key of a cell's interpreter: "312", "313t", "abi3_310" (any CPython >= 3.10). */
static const char *py_key(struct arena *a, const struct cell *c)
{
	return c->abi3 ? arena_printf(a, "abi3_%s", nodot(a, c->python)) : nodot(a, c->python);
}

/* A GCC-style flag from the config as cl.exe spells it; NULL when MSVC needs nothing for it
 * (-fvisibility=hidden: DLLs export only what is declared; -ffp-contract=off: /fp:precise,
 * the default, contracts nothing unless /fp:contract is given). Others pass as written. */
static const char *msvc_flag(struct arena *a, const char *f)
{
	if (!strcmp(f, "-ffp-contract=off") || !strncmp(f, "-fvisibility", 12) ||
	    !strcmp(f, "-fPIC"))
		return NULL;
	if (!strcmp(f, "-O2") || !strcmp(f, "-O3"))
		return "/O2";
	if (!strcmp(f, "-g"))
		return "/Z7";
	if (!strncmp(f, "-std=c++", 8))
		return arena_printf(a, "/std:c++%s", f + 8);
	if (!strncmp(f, "-D", 2) || !strncmp(f, "-I", 2))
		return arena_printf(a, "/%s", f + 1);
	return f;
}

/* Whether flags name a C++ standard (-std=, or cl.exe's /std:). */
static bool has_std(const struct strv *flags)
{
	for (size_t i = 0; i < flags->n; i++)
		if (!strncmp(flags->v[i], "-std=", 5) || !strncmp(flags->v[i], "/std:", 5))
			return true;
	return false;
}

static void emit_msvc_flags(struct wgen *g, const struct strv *v, bool xcompiler)
{
	for (size_t i = 0; i < v->n; i++) {
		const char *f = msvc_flag(g->a, v->v[i]);
		if (f)
			win_arg_sp(&g->sb, xcompiler ? arena_printf(g->a, "-Xcompiler=%s", f) : f);
	}
}

static void emit_defines(struct wgen *g, const char *flag, const struct strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		win_arg_sp(&g->sb, arena_printf(g->a, "%s%s", flag, v->v[i]));
}

static void emit_includes(struct wgen *g, const char *flag, const struct strv *dirs)
{
	for (size_t i = 0; i < dirs->n; i++)
		win_arg_sp(&g->sb, arena_printf(g->a, "%ssrc/%s", flag, dirs->v[i]));
}

static bool ext_of(const char *path, const char *ext)
{
	const char *dot = strrchr(path, '.');
	return dot && !strcmp(dot, ext);
}

static void emit_rules(struct wgen *g)
{
	sb_puts(&g->sb, WIN_HEADER
	        " from pyproject.toml; do not edit.\n"
	        "# On the runner, in an MSVC developer environment (vcvars64):\n"
	        "#   python probe.py   (finds MSVC, CUDA, Python, torch: writes paths.ninja)\n"
	        "#   ninja             (writes stage/<cell>/.../*.pyd)\n"
	        "ninja_required_version = 1.10\n"
	        "msvc_deps_prefix = Note: including file:\n"
	        "include paths.ninja\n\n");
	/* The kernels' rule, where the kernels table lists sources (its $cuda is theirs). */
	if (g->cfg->kernels.files.n)
		sb_puts(&g->sb, "rule nvcc\n"
		                "  command = $nvcc $flags -c $in -o $out\n"
		                "  description = kernels CUDA $cuda: nvcc $in\n\n");
	sb_puts(&g->sb, "rule nvcc_cell\n"
	                "  command = $nvcc $flags -c $in -o $out\n"
	                "  description = $what: nvcc $in\n\n"
	                "rule cl\n"
	                "  command = $cl /nologo /showIncludes $flags /c $in /Fo$out\n"
	                "  deps = msvc\n"
	                "  description = $what: cl $in\n\n"
	                "rule lib\n"
	                "  command = $lib /nologo /OUT:$out $in\n"
	                "  description = lib $out\n\n"
	                "rule link\n"
	                "  command = $link /nologo /DLL /OUT:$out $in $ldflags\n"
	                "  description = link $out\n\n");
}

/* The kernels of one toolkit: nvcc per .cu, cl per .c/.cpp, lib.exe into one archive. */
static char *emit_archive(struct wgen *g, const struct toolkit_plan *tp)
{
	struct strbuf *sb = &g->sb;
	const struct kernels_cfg *k = &g->cfg->kernels;
	const char *key = nodot(g->a, tp->cuda);
	const struct arch *archs = tp->n_archs ? tp->archs : k->archs;
	size_t n_archs = tp->n_archs ? tp->n_archs : k->n_archs;
	char *archive = arena_printf(g->a, "kernels/cu%s/kernels.lib", key);
	sb_printf(sb, "# CUDA %s: kernels compiled once, shared by every cell of this toolkit\n",
	          tp->cuda);
	struct strv objs = {0};
	for (size_t i = 0; i < k->files.n; i++) {
		const char *src = k->files.v[i];
		char *obj = arena_printf(g->a, "kernels/cu%s/obj/%s.obj", key, src);
		strv_push(g->a, &objs, obj);
		sb_puts(sb, "build ");
		ninja_path(sb, obj);
		sb_puts(sb, ext_of(src, ".cu") ? ": nvcc " : ": cl ");
		ninja_path(sb, arena_printf(g->a, "src/%s", src));
		if (ext_of(src, ".cu")) {
			/* The project's own -O level and standard stand alone, as on Linux: nvcc
			 * takes the last of two and warns "incompatible redefinition" on each. */
			sb_printf(sb, "\n  cuda = %s\n  nvcc = $nvcc_%s\n  flags =", tp->cuda, key);
			if (!toolchain_nvcc_own_opt(&k->nvcc_flags))
				sb_puts(sb, " -O3");
			if (!toolchain_nvcc_own_std(&k->nvcc_flags))
				sb_puts(sb, " -std=c++17");
			sb_puts(sb, " --use-local-env -Xcompiler=/MD -Xcompiler=/O2");
			if (k->rdc)
				sb_puts(sb, " -rdc=true");
			sb_puts(sb, cuda_arch_nvcc_flags(g->a, archs, n_archs, true));
			emit_includes(g, "-I", &k->include_dirs);
			emit_defines(g, "-D", &k->defines);
			emit_msvc_flags(g, &k->host_flags, true);
			for (size_t f = 0; f < k->nvcc_flags.n; f++)
				win_arg_sp(sb, k->nvcc_flags.v[f]);
		} else {
			/* cl.exe takes the last /std: too (warning D9025): host-flags' stands. */
			sb_printf(sb, "\n  what = kernels CUDA %s\n  flags = /O2 /MD /DNDEBUG%s%s",
			          tp->cuda, ext_of(src, ".c") ? "" : " /EHsc",
			          ext_of(src, ".c") || has_std(&k->host_flags) ? ""
			                                                       : " /std:c++17");
			emit_includes(g, "/I", &k->include_dirs);
			sb_printf(sb, " \"/I$cuda_inc_%s\"", key);
			emit_defines(g, "/D", &k->defines);
			emit_msvc_flags(g, &k->host_flags, false);
		}
		sb_puts(sb, "\n");
	}
	if (k->rdc) {
		char *dlink = arena_printf(g->a, "kernels/cu%s/obj/dlink.obj", key);
		sb_puts(sb, "build ");
		ninja_path(sb, dlink);
		sb_puts(sb, ": nvcc");
		ninja_paths(sb, &objs);
		sb_printf(sb,
		          "\n  cuda = %s\n  nvcc = $nvcc_%s -dlink\n  flags = --use-local-env "
		          "-Xcompiler=/MD",
		          tp->cuda, key);
		sb_puts(sb, cuda_arch_nvcc_flags(g->a, archs, n_archs, false));
		sb_puts(sb, "\n");
		strv_push(g->a, &objs, dlink);
	}
	sb_puts(sb, "build ");
	ninja_path(sb, archive);
	sb_puts(sb, ": lib");
	ninja_paths(sb, &objs);
	sb_puts(sb, "\n\n");
	return archive;
}

/* A .cu among a torch extension's sources, per cell: nvcc with the flags of cpp_extension's
 * Windows path in its order: -std=c++17 (c++20 from torch 2.12), COMMON_MSVC_FLAGS through
 * -Xcompiler, the cudafe suppressions, the preprocessor options, then COMMON_NVCC_FLAGS, the nvcc
 * flags with BuildExtension's two defines, and the archs (win_cuda_flags). */
static void emit_torch_cu(struct wgen *g, const struct cell *c, const struct extension_cfg *x,
                          const char *src, const char *obj)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	const struct kernels_cfg *k = &g->cfg->kernels;
	const char *cu = nodot(g->a, c->cuda), *pk = py_key(g->a, c);
	sb_puts(sb, "build ");
	ninja_path(sb, obj);
	sb_puts(sb, ": nvcc_cell ");
	ninja_path(sb, arena_printf(g->a, "src/%s", src));
	sb_printf(sb, "\n  what = %s\n  nvcc = $nvcc_%s\n  flags = -std=%s", c->id, cu,
	          torchflags_std_of(c->torch));
	for (size_t f = 0; f < sizeof torch_msvc_flags / sizeof *torch_msvc_flags; f++)
		win_arg_sp(sb, arena_printf(g->a, "-Xcompiler=%s", torch_msvc_flags[f]));
	sb_puts(sb, " --use-local-env");
	for (size_t f = 0; f < sizeof msvc_cudafe_ignored / sizeof *msvc_cudafe_ignored; f++)
		sb_printf(sb, " -Xcudafe --diag_suppress=%s", msvc_cudafe_ignored[f]);
	emit_defines(g, "-D", &x->defines);
	emit_includes(g, "-I", &x->include_dirs);
	sb_printf(sb, " \"-I$torch_inc_%s\" \"-I$torch_api_inc_%s\"", pk, pk);
	sb_printf(sb, " \"-I$py_inc_%s\" \"-I$cuda_inc_%s\"", pk, cu);
	for (const char *const *fl = torchflags_nvcc_common; *fl; fl++)
		win_arg_sp(sb, *fl);
	for (size_t f = 0; f < k->nvcc_flags.n; f++)
		win_arg_sp(sb, k->nvcc_flags.v[f]);
	sb_puts(sb, " -DTORCH_API_INCLUDE_EXTENSION_H");
	win_arg_sp(sb, arena_printf(g->a, "-DTORCH_EXTENSION_NAME=%s",
	                            torchflags_extension_name(x->module)));
	const struct arch *archs = tp->n_archs ? tp->archs : k->archs;
	size_t n_archs = tp->n_archs ? tp->n_archs : k->n_archs;
	sb_puts(sb, cuda_arch_nvcc_flags(g->a, archs, n_archs, true));
	sb_puts(sb, "\n");
}

/* A .cu among the sources of an extension of another kind than torch (a kernel it lists
 * itself), per cell: nvcc as the kernels' edges call it (-O3 unless its nvcc flags give an
 * -O level, --use-local-env, /MD and /O2 for MSVC, the archs), then what the Linux graph
 * gives such a source (plainflags_cu): the extension's include dirs, the cell's Python include
 * dir, its defines, the kernels' host-flags through -Xcompiler, its own nvcc-flags (else the
 * kernels'), -std=c++17 unless those name a standard. Per cell, not once per toolkit: whether
 * the source reads Python's headers is the Linux preprocessor's answer on the build machine,
 * which this graph, a pure function of the plan, does not take. */
static void emit_plain_cu(struct wgen *g, const struct cell *c, const struct extension_cfg *x,
                          const char *src, const char *obj)
{
	struct strbuf *sb = &g->sb;
	const struct toolkit_plan *tp = &g->plan->toolkits[c->toolkit];
	const struct kernels_cfg *k = &g->cfg->kernels;
	const struct strv *nv = x->own_nvcc_flags ? &x->nvcc_flags : &k->nvcc_flags;
	const char *cu = nodot(g->a, c->cuda), *pk = py_key(g->a, c);
	sb_puts(sb, "build ");
	ninja_path(sb, obj);
	sb_puts(sb, ": nvcc_cell ");
	ninja_path(sb, arena_printf(g->a, "src/%s", src));
	sb_printf(sb, "\n  what = %s\n  nvcc = $nvcc_%s\n  flags =", c->id, cu);
	if (!toolchain_nvcc_own_opt(nv))
		sb_puts(sb, " -O3");
	sb_puts(sb, " --use-local-env -Xcompiler=/MD -Xcompiler=/O2");
	const struct arch *archs = tp->n_archs ? tp->archs : k->archs;
	size_t n_archs = tp->n_archs ? tp->n_archs : k->n_archs;
	sb_puts(sb, cuda_arch_nvcc_flags(g->a, archs, n_archs, true));
	emit_includes(g, "-I", &x->include_dirs);
	sb_printf(sb, " \"-I$py_inc_%s\"", pk);
	emit_defines(g, "-D", &x->defines);
	emit_msvc_flags(g, &k->host_flags, true);
	for (size_t f = 0; f < nv->n; f++)
		win_arg_sp(sb, nv->v[f]);
	if (!toolchain_nvcc_own_std(nv))
		sb_puts(sb, " -std=c++17");
	sb_puts(sb, "\n");
}

/* One cell: the binding compiled with cl.exe, linked with link.exe /DLL into the staged tree. */
static void emit_cell(struct wgen *g, const struct cell *c, const char *archive)
{
	struct strbuf *sb = &g->sb;
	const struct config *cfg = g->cfg;
	const char *cu = nodot(g->a, c->cuda), *pk = py_key(g->a, c);
	sb_printf(sb, "# %s: Python %s%s\n", c->id, c->python, c->abi3 ? " or newer (abi3)" : "");
	struct strv mods = {0};
	for (size_t e = 0; e < cfg->n_extensions; e++) {
		const struct extension_cfg *x = &cfg->extensions[e];
		bool torch = x->kind == EXT_TORCH;
		struct strv objs = {0};
		for (size_t i = 0; i < x->files.n; i++) {
			const char *src = x->files.v[i];
			bool cxx = !ext_of(src, ".c");
			char *obj = arena_printf(g->a, "obj/%s/%s/%s.obj", c->id, x->module, src);
			strv_push(g->a, &objs, obj);
			if (ext_of(src, ".cu")) {
				if (torch)
					emit_torch_cu(g, c, x, src, obj);
				else
					emit_plain_cu(g, c, x, src, obj);
				continue;
			}
			sb_puts(sb, "build ");
			ninja_path(sb, obj);
			sb_puts(sb, ": cl ");
			ninja_path(sb, arena_printf(g->a, "src/%s", src));
			sb_printf(sb, "\n  what = %s\n  flags =", c->id);
			for (size_t f = 0; f < sizeof setuptools_cflags / sizeof *setuptools_cflags;
			     f++)
				win_arg_sp(sb, setuptools_cflags[f]);
			if (torch) {
				/* cpp_extension: COMMON_MSVC_FLAGS + cflags, then /std:c++17
				 * (c++20 from torch 2.12) unless the extension's flags name one
				 * (append_std17_if_no_std_present), and the two defines its
				 * BuildExtension adds. */
				for (size_t f = 0;
				     f < sizeof torch_msvc_flags / sizeof *torch_msvc_flags; f++)
					win_arg_sp(sb, torch_msvc_flags[f]);
				if (!has_std(&x->cflags))
					sb_printf(sb, " /std:%s", torchflags_std_of(c->torch));
				sb_puts(sb, " -DTORCH_API_INCLUDE_EXTENSION_H");
				win_arg_sp(sb, arena_printf(g->a, "-DTORCH_EXTENSION_NAME=%s",
				                            torchflags_extension_name(x->module)));
			} else if (cxx) {
				sb_puts(sb, has_std(&x->cflags) ? " /EHsc" : " /EHsc /std:c++17");
			}
			emit_includes(g, "/I", &x->include_dirs);
			if (torch)
				sb_printf(sb, " \"/I$torch_inc_%s\" \"/I$torch_api_inc_%s\"", pk,
				          pk);
			sb_printf(sb, " \"/I$py_inc_%s\" \"/I$cuda_inc_%s\"", pk, cu);
			if (c->abi3)
				sb_printf(sb, " /DPy_LIMITED_API=%s",
				          buildgraph_limited_api(g->a, c->python));
			emit_defines(g, "/D", &x->defines);
			emit_msvc_flags(g, &x->cflags, false);
			sb_puts(sb, "\n");
		}
		const char *modpath = wingraph_module_path(g->a, x, c);
		char *pyd = arena_printf(g->a, "stage/%s/%s", c->id, modpath);
		strv_push(g->a, &mods, pyd);
		sb_puts(sb, "build ");
		ninja_path(sb, pyd);
		sb_puts(sb, ": link");
		ninja_paths(sb, &objs);
		if (archive) {
			sb_puts(sb, " | ");
			ninja_path(sb, archive);
		}
		sb_puts(sb, "\n  ldflags =");
		for (size_t f = 0; f < sizeof setuptools_ldflags / sizeof *setuptools_ldflags; f++)
			win_arg_sp(sb, setuptools_ldflags[f]);
		if (torch)
			sb_printf(sb, " \"/LIBPATH:$torch_lib_%s\"", pk);
		sb_printf(sb, " \"/LIBPATH:$py_libs_%s\" \"/LIBPATH:$cuda_lib_%s\"", pk, cu);
		if (archive)
			win_arg_sp(sb, arena_printf(g->a, "/WHOLEARCHIVE:%s", archive));
		if (torch) {
			/* cudart comes with torch (torch/lib holds cudart64_*.dll). */
			for (size_t f = 0; f < sizeof torch_libs / sizeof *torch_libs; f++)
				win_arg_sp(sb, torch_libs[f]);
		} else {
			sb_puts(sb, cfg->kernels.cudart == CUDART_STATIC ? " cudart_static.lib"
			                                                 : " cudart.lib");
		}
		if (c->abi3)
			sb_puts(sb, " python3.lib");
		else
			sb_printf(sb, " python%s.lib", nodot(g->a, c->python));
		/* setuptools exports PyInit_<mod>; cpp_extension's get_export_symbols leaves it
		 * out (pybind11 declares it dllexport), and so does setuptools for a Library: a
		 * library its package loads by path (loaded-by = "path") defines no PyInit_. */
		if (!torch && !x->loaded_by_path) {
			const char *dot = strrchr(x->module, '.');
			win_arg_sp(
			    sb, arena_printf(g->a, "/EXPORT:PyInit_%s", dot ? dot + 1 : x->module));
		}
		win_arg_sp(sb, arena_printf(g->a, "/IMPLIB:obj/%s/%s.lib", c->id, x->module));
		for (size_t f = 0; f < x->ldflags.n; f++)
			win_arg_sp(sb, x->ldflags.v[f]);
		for (size_t f = 0; f < x->libraries.n; f++)
			win_arg_sp(sb, arena_printf(g->a, "%s.lib", x->libraries.v[f]));
		sb_puts(sb, "\n");
	}
	sb_puts(sb, "build ");
	ninja_path(sb, c->id);
	sb_puts(sb, ": phony");
	ninja_paths(sb, &mods);
	sb_puts(sb, "\n\n");
}

static void emit_probe(struct wgen *g, struct strbuf *sb)
{
	sb_puts(sb,
	        "#!/usr/bin/env python3\n" WIN_HEADER "; do not edit.\n"
	        "# probe.py: run on the Windows runner before ninja, in an MSVC developer\n"
	        "# environment. Finds cl/link/lib, each CUDA toolkit and each Python (with its\n"
	        "# torch) the cells need and writes paths.ninja beside this file.\n"
	        "# CUWHEEL_PYTHON_3_12=C:\\path\\python.exe picks an interpreter.\n\n");
	sb_puts(sb, "TOOLKITS = {");
	struct strv seen = {0};
	for (size_t i = 0; i < g->plan->n_cells; i++) {
		const struct cell *c = &g->plan->cells[i];
		const char *k = nodot(g->a, c->cuda);
		if (!wingraph_cell(c) || strv_contains(&seen, k))
			continue;
		sb_printf(sb, "%s\"%s\": \"%s\"", seen.n ? ", " : "", k, c->cuda);
		strv_push(g->a, &seen, k);
	}
	sb_puts(sb, "}\nPYTHONS = {\n");
	seen = (struct strv){0};
	bool torch_kind = false;
	for (size_t e = 0; e < g->cfg->n_extensions; e++)
		torch_kind |= g->cfg->extensions[e].kind == EXT_TORCH;
	for (size_t i = 0; i < g->plan->n_cells; i++) {
		const struct cell *c = &g->plan->cells[i];
		const char *k = py_key(g->a, c);
		if (!wingraph_cell(c) || strv_contains(&seen, k))
			continue;
		strv_push(g->a, &seen, k);
		sb_printf(sb, "    \"%s\": {\"version\": \"%s\", \"abi3\": %s, \"torch\": ", k,
		          c->python, c->abi3 ? "True" : "False");
		if (torch_kind && c->torch)
			sb_printf(sb, "\"%s\"},\n", c->torch);
		else
			sb_puts(sb, "None},\n");
	}
	sb_puts(sb, "}\n\n");
	sb_add(sb, win_probe_py, win_probe_py_len);
}

bool wingraph_render(struct arena *a, struct diag *d, const struct plan *plan,
                     struct win_export *out)
{
	memset(out, 0, sizeof *out);
	const struct config *cfg = plan->cfg;
	struct wgen g = {.a = a, .d = d, .plan = plan, .cfg = cfg};
	for (size_t e = 0; e < cfg->n_extensions; e++)
		if (cfg->extensions[e].kind == EXT_PYBIND11) {
			diag_path(
			    d, DIAG_ERROR, cfg->pyproject,
			    "extension %s: kind pybind11 has no Windows graph yet (capi, abi3 "
			    "and torch do)",
			    cfg->extensions[e].module);
			return false;
		}
	/* uses-torch = "auto" is decided by nvcc's preprocessor on the build machine
	 * (torch_scan.c); a Windows graph has no such run on Linux, so only an explicit "on" is
	 * refused here. */
	if (cfg->kernels.files.n && cfg->kernels.uses_torch == TRI_ON) {
		diag_path(
		    d, DIAG_ERROR, cfg->pyproject,
		    "the kernels include torch headers: the Windows graph builds them once per "
		    "toolkit without torch; keep torch headers in the binding");
		return false;
	}
	emit_rules(&g);
	char **archives = arena_calloc(a, plan->n_toolkits + 1, sizeof *archives);
	for (size_t i = 0; i < plan->n_cells; i++) {
		const struct cell *c = &plan->cells[i];
		if (!wingraph_cell(c) || archives[c->toolkit] || !cfg->kernels.files.n)
			continue;
		archives[c->toolkit] = emit_archive(&g, &plan->toolkits[c->toolkit]);
		out->n_toolkits++;
	}
	for (size_t i = 0; i < plan->n_cells; i++) {
		const struct cell *c = &plan->cells[i];
		if (!wingraph_cell(c))
			continue;
		emit_cell(&g, c, archives[c->toolkit]);
		strv_push(a, &out->cells, c->id);
	}
	sb_puts(&g.sb, "build all: phony");
	for (size_t i = 0; i < out->cells.n; i++) {
		sb_putc(&g.sb, ' ');
		ninja_path(&g.sb, out->cells.v[i]);
	}
	sb_puts(&g.sb, "\ndefault all\n");
	out->ninja = sb_to_arena(&g.sb, a);
	struct strbuf probe = {0};
	emit_probe(&g, &probe);
	out->probe = sb_to_arena(&probe, a);
	return !g.failed;
}
