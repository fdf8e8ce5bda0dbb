/* torchflags.c: what torch.utils.cpp_extension (BuildExtension with CppExtension/CUDAExtension)
 * passes on Linux, rebuilt from the probe of each interpreter's torch rather than from a table
 * per torch version. */
#include "torch/torchflags.h"

#include <stdio.h>
#include <string.h>

#include "base/os-file.h"

const char *const torchflags_nvcc_common[] = {
    "-D__CUDA_NO_HALF_OPERATORS__",       "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
    "--expt-relaxed-constexpr",           NULL,
};

const char *torchflags_requirement(struct arena *a, const char *torch, bool stable)
{
	int major = 0, minor = 0;
	if (sscanf(torch, "%d.%d", &major, &minor) != 2)
		return arena_printf(a, stable ? "torch>=%s" : "torch==%s.*", torch);
	if (stable)
		return arena_printf(a, "torch>=%d.%d", major, minor);
	return arena_printf(a, "torch>=%d.%d,<%d.%d", major, minor, major, minor + 1);
}

const char *torchflags_extension_name(const char *module)
{
	const char *dot = strrchr(module, '.');
	return dot ? dot + 1 : module;
}

static bool has_prefix_flag(const struct strv *v, const char *prefix)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strncmp(v->v[i], prefix, strlen(prefix)))
			return true;
	return false;
}

/* The ABI defines: what that torch's cpp_extension says it adds; when it could not be asked
 * (no setuptools beside torch), what older cpp_extension derived from torch._C. */
static void push_abi_defines(struct arena *a, const struct torch_info *ti, struct strv *out)
{
	if (ti->abi_flags_known) {
		for (size_t i = 0; i < ti->abi_flags.n; i++)
			strv_push(a, out, ti->abi_flags.v[i]);
		return;
	}
	if (ti->pybind11_compiler_type)
		strv_push(
		    a, out,
		    arena_printf(a, "-DPYBIND11_COMPILER_TYPE=\"%s\"", ti->pybind11_compiler_type));
	if (ti->pybind11_stdlib)
		strv_push(a, out, arena_printf(a, "-DPYBIND11_STDLIB=\"%s\"", ti->pybind11_stdlib));
	if (ti->pybind11_build_abi)
		strv_push(a, out,
		          arena_printf(a, "-DPYBIND11_BUILD_ABI=\"%s\"", ti->pybind11_build_abi));
	if (ti->cxx11_abi >= 0)
		strv_push(a, out, arena_printf(a, "-D_GLIBCXX_USE_CXX11_ABI=%d", ti->cxx11_abi));
}

/* The shared CUDA runtime a torch binding links: -lcudart when the toolkit has libcudart.so
 * (NVIDIA's installers, PyPI's 13.x); else (Debian's 11.8/12.4 carry only the static one) the
 * libcudart.so.<major> that torch loads, from torch/lib or the nvidia-cuda-runtime package
 * beside it, by path, since -lcudart would take whatever CUDA's runtime the system has (CUDA
 * 13's here: a +pt26cu124 wheel needing libcudart.so.13). NULL + *err when there is none. */
static const char *cudart_for_torch(struct arena *a, const struct torch_info *ti,
                                    const struct toolkit *tk, const char **err)
{
	if (os_exists(os_join(a, tk->lib_dir, "libcudart.so")))
		return "-lcudart";
	const char *so = arena_printf(a, "libcudart.so.%d", tk->major);
	const char *site = os_join(a, ti->lib_dir, "../..");
	/* nvidia-cuda-runtime-cu12's layout, then CUDA 13's nvidia-cuda-runtime's. */
	const char *dirs[] = {ti->lib_dir, os_join(a, site, "nvidia/cuda_runtime/lib"),
	                      os_join(a, site, arena_printf(a, "nvidia/cu%d/lib", tk->major))};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		const char *p = os_join(a, dirs[i], so);
		if (os_exists(p))
			return os_realpath(a, p) ? os_realpath(a, p) : p;
	}
	*err = arena_printf(a,
	                    "CUDA %s (%s) has no libcudart.so and torch %s brings no %s (looked in "
	                    "%s, %s and %s): -lcudart would link another CUDA's runtime from the "
	                    "system; install nvidia-cuda-runtime-cu%d beside torch",
	                    tk->version, tk->root, ti->version, so, dirs[0], dirs[1], dirs[2],
	                    tk->major);
	return NULL;
}

bool torchflags_for(struct arena *a, const struct extension_cfg *x, const struct interp *py,
                    const struct toolkit *tk, struct torch_flags *f, const char **err)
{
	memset(f, 0, sizeof(*f));
	const struct torch_info *ti = &py->torch;
	bool torch = x->kind == EXT_TORCH;
	if (torch && !ti->present) {
		*err = arena_printf(
		    a, "extension %s is of kind torch, but Python %s has no torch%s%s", x->module,
		    py->version, ti->error ? ": " : "", ti->error ? ti->error : "");
		return false;
	}
	if (torch && (!ti->lib_dir || ti->include_dirs.n == 0)) {
		*err = arena_printf(a,
		                    "the probe of %s found torch %s without include and lib "
		                    "dirs",
		                    py->path, ti->version ? ti->version : "?");
		return false;
	}
	struct strv *c = &f->cflags;
	if (torch) {
		/* BuildExtension.build_extensions: -DTORCH_API_INCLUDE_EXTENSION_H, (older torch)
		 * -DPYBIND11_*, -DTORCH_EXTENSION_NAME, (older torch) -D_GLIBCXX_USE_CXX11_ABI. */
		struct strv abi = {0};
		push_abi_defines(a, ti, &abi);
		strv_push(a, &f->post, "-DTORCH_API_INCLUDE_EXTENSION_H");
		for (size_t i = 0; i < abi.n; i++)
			if (strncmp(abi.v[i], "-D_GLIBCXX_", 11) != 0)
				strv_push(a, &f->post, abi.v[i]);
		strv_push(a, &f->post,
		          arena_printf(a, "-DTORCH_EXTENSION_NAME=%s",
		                       torchflags_extension_name(x->module)));
		for (size_t i = 0; i < abi.n; i++)
			if (strncmp(abi.v[i], "-D_GLIBCXX_", 11) == 0)
				strv_push(a, &f->post, abi.v[i]);
		strv_push(a, c, "-DTORCH_API_INCLUDE_EXTENSION_H");
		strv_push(a, c,
		          arena_printf(a, "-DTORCH_EXTENSION_NAME=%s",
		                       torchflags_extension_name(x->module)));
		for (size_t i = 0; i < abi.n; i++)
			strv_push(a, c, abi.v[i]);
		/* py_limited_api=True: cpp_extension's min_supported_cpython (3.10), whatever
		 * the cell's baseline; the audit checks the imports against the wheel's tag. The
		 * stable ABI's target is the torch built against (the axis' oldest). */
		const char *extra[2] = {NULL, NULL};
		if (x->abi3)
			extra[0] = "-DPy_LIMITED_API=0x030A0000";
		int tmaj = 0, tmin = 0;
		if (x->torch_stable && ti->version_short &&
		    sscanf(ti->version_short, "%d.%d", &tmaj, &tmin) == 2)
			extra[1] = arena_printf(a, "-DTORCH_TARGET_VERSION=0x%02x%02x000000000000",
			                        tmaj, tmin);
		for (size_t i = 0; i < 2; i++)
			if (extra[i]) {
				strv_push(a, c, extra[i]);
				strv_push(a, &f->post, extra[i]);
			}
	}
	/* cpp_extension appends -std=c++17 (c++20 from torch 2.12) unless a -std= is given (nvcc
	 * refuses two). */
	if (!has_prefix_flag(&x->cflags, "-std=")) {
		const char *std = torchflags_std(torch ? ti : NULL);
		strv_push(a, c, std);
		strv_push(a, &f->post, std);
	}
	/* Torch's include dirs (also where a pybind11 extension finds pybind11 when torch is
	 * there), as cpp_extension's include_paths() lists them, then the CUDA one. */
	if (ti->present)
		for (size_t i = 0; i < ti->include_dirs.n; i++) {
			strv_push(a, c, arena_printf(a, "-I%s", ti->include_dirs.v[i]));
			strv_push(a, &f->incs, arena_printf(a, "-I%s", ti->include_dirs.v[i]));
		}
	/* Without torch, a pybind11 extension finds pybind11 where its interpreter imports it
	 * from (pybind11.get_include(), as pybind11's own setup helpers do). */
	else if (x->kind == EXT_PYBIND11 && py->pybind11.include_dir)
		strv_push(a, c, arena_printf(a, "-I%s", py->pybind11.include_dir));

	bool cuda = torch && tk && ti->cuda;
	for (const char *const *fl = torchflags_nvcc_common; *fl; fl++) {
		strv_push(a, &f->nvcc, *fl);
		strv_push(a, &f->nvcc_common, *fl);
	}
	for (size_t i = 0; i < c->n; i++)
		strv_push(a, &f->nvcc, c->v[i]);

	if (torch) {
		struct strv *l = &f->ldflags;
		strv_push(a, l, arena_printf(a, "-L%s", ti->lib_dir));
		if (cuda)
			strv_push(a, l, arena_printf(a, "-L%s", tk->lib_dir));
		static const char *const libs[] = {"-lc10", "-ltorch", "-ltorch_cpu",
		                                   "-ltorch_python"};
		static const char *const cuda_libs[] = {"-lcudart", "-lc10_cuda", "-ltorch_cuda"};
		/* torch_python is built for one Python and one torch: neither an abi3 nor a
		 * stable-ABI module may link it (cpp_extension leaves it out for py_limited_api).
		 */
		bool no_python = x->abi3 || x->torch_stable;
		for (size_t i = 0; i < sizeof(libs) / sizeof(*libs); i++)
			if (!no_python || strcmp(libs[i], "-ltorch_python") != 0)
				strv_push(a, l, libs[i]);
		for (size_t i = 0; cuda && i < sizeof(cuda_libs) / sizeof(*cuda_libs); i++) {
			if (i == 0) {
				const char *rt = cudart_for_torch(a, ti, tk, err);
				if (!rt)
					return false;
				strv_push(a, l, rt);
			} else {
				strv_push(a, l, cuda_libs[i]);
			}
		}
		f->cudart_shared = cuda;
	}
	return true;
}

const char *torchflags_std_of(const char *torch)
{
	int maj = 0, min = 0;
	if (torch && sscanf(torch, "%d.%d", &maj, &min) == 2 &&
	    (maj > 2 || (maj == 2 && min >= 12)))
		return "c++20";
	return "c++17";
}

const char *torchflags_std(const struct torch_info *ti)
{
	const char *std = torchflags_std_of(ti && ti->present ? ti->version_short : NULL);
	return strcmp(std, "c++20") ? "-std=c++17" : "-std=c++20";
}
