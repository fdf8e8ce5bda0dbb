/* plainflags.c: the compile flags of a capi, abi3 or pybind11 extension's sources, per Python
 * or shared by every Python of a toolkit (plainflags.h). */
#include "torch/plainflags.h"

#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "kernels/buildflags.h"
#include "toolchain/toolchain.h"

static const char *suffix(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot : "";
}

/* Whether src is compiled as C++: a .cpp/.cc/.cxx, or any non-.c source of a C++ kind. */
static bool as_cxx(const struct extension_cfg *x, const char *src)
{
	const char *s = suffix(src);
	bool cxx_kind = x->kind == EXT_TORCH || x->kind == EXT_PYBIND11;
	return !strcmp(s, ".cpp") || !strcmp(s, ".cc") || !strcmp(s, ".cxx") ||
	       (cxx_kind && strcmp(s, ".c") != 0);
}

const char *plainflags_cc(const struct toolkit *tk, const struct extension_cfg *x, const char *src,
                          const char *cc, const char *cxx)
{
	bool cpp = as_cxx(x, src);
	if (!tk->host.ccbin)
		return cpp ? cxx : cc;
	return cpp ? tk->host.cxx : tk->host.cc;
}

void plainflags_host(struct arena *a, const struct config *cfg, const struct extension_cfg *x,
                     const struct cell *c, const struct toolkit *tk, const struct torch_flags *tf,
                     const char *proj, const char *src, bool shared, struct strv *out)
{
	bool cxx_kind = x->kind == EXT_TORCH || x->kind == EXT_PYBIND11;
	bool cxx = as_cxx(x, src);
	static const char *const base[] = {"-O2", "-DNDEBUG", "-fPIC", "-fvisibility=hidden"};
	for (size_t i = 0; i < sizeof(base) / sizeof(*base); i++)
		strv_push(a, out, base[i]);
	/* Sources are named relative to the build dir, so the map is too. */
	strv_push(a, out, arena_printf(a, "-ffile-prefix-map=%s=.", proj));
	for (size_t i = 0; i < x->include_dirs.n; i++)
		strv_push(a, out,
		          arena_printf(a, "-I%s", path_under(a, proj, x->include_dirs.v[i])));
	strv_push(a, out, arena_printf(a, "-I%s", tk->include_dir));
	if (!shared) {
		strv_push(a, out, "-isystem");
		strv_push(a, out, c->py->include_dir);
	}
	if (!shared && c->abi3 && !(cxx_kind && cxx)) /* C++ torch sources: in tf->cflags */
		strv_push(a, out,
		          arena_printf(a, "-DPy_LIMITED_API=0x03%02X0000", atoi(c->python + 2)));
	const char *pb11 = c->py->pybind11.include_dir
	                       ? arena_printf(a, "-I%s", c->py->pybind11.include_dir)
	                       : NULL;
	for (size_t i = 0; cxx_kind && cxx && i < tf->cflags.n; i++)
		if (!shared || !pb11 || strcmp(tf->cflags.v[i], pb11) != 0)
			strv_push(a, out, tf->cflags.v[i]);
	for (size_t i = 0; i < x->defines.n; i++)
		strv_push(a, out, arena_printf(a, "-D%s", x->defines.v[i]));
	buildflags_host(a, cfg, &c->py->torch, false, out);
	for (size_t i = 0; i < x->cflags.n; i++)
		strv_push(a, out, x->cflags.v[i]);
}

void plainflags_cu(struct arena *a, const struct config *cfg, const struct extension_cfg *x,
                   const struct cell *c, const char *proj, bool shared, struct strv *out)
{
	const struct strv *nv = x->own_nvcc_flags ? &x->nvcc_flags : &cfg->kernels.nvcc_flags;
	for (size_t i = 0; i < x->include_dirs.n; i++)
		strv_push(a, out,
		          arena_printf(a, "-I%s", path_under(a, proj, x->include_dirs.v[i])));
	if (!shared) {
		strv_push(a, out, "-isystem");
		strv_push(a, out, c->py->include_dir);
	}
	for (size_t i = 0; i < x->defines.n; i++)
		strv_push(a, out, arena_printf(a, "-D%s", x->defines.v[i]));
	for (size_t i = 0; i < cfg->kernels.host_flags.n; i++)
		strv_push(a, out, toolchain_xcompiler(a, cfg->kernels.host_flags.v[i]));
	for (size_t i = 0; i < nv->n; i++)
		strv_push(a, out, nv->v[i]);
	if (!toolchain_nvcc_own_std(nv))
		strv_push(a, out, "-std=c++17");
}
