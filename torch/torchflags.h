/* torchflags.h: the compile and link flags torch.utils.cpp_extension passes for a torch (or
 * pybind11) extension, read from one interpreter's probed torch installation (whether the
 * kernels include torch headers is torch_plan.h's question). */
#ifndef CUWHEEL_TORCH_TORCHFLAGS_H
#define CUWHEEL_TORCH_TORCHFLAGS_H

#include <stdbool.h>

#include "base/arena.h"
#include "matrix/config.h"
#include "toolchain/discover.h"

struct torch_flags {
	/* BuildExtension's order: its include dirs come with the project's (-I user dirs, then
	 * torch's), COMMON_NVCC_FLAGS and the project's flags follow, and the defines it appends
	 * to extra_compile_args come after the project's flags, then -std=c++17 unless the
	 * project gave a -std: a project's -U__CUDA_NO_HALF_OPERATORS__ undoes torch's -D. */
	struct strv incs;        /* -I<torch include>..., as include_paths() lists them */
	struct strv nvcc_common; /* COMMON_NVCC_FLAGS: the __CUDA_NO_HALF* defines and
	                          * --expt-relaxed-constexpr */
	struct strv
	    post; /* -DTORCH_API_INCLUDE_EXTENSION_H, the ABI defines, -DTORCH_EXTENSION_NAME=,
	           * -std=c++17 unless the project's flags have a -std= */
	struct strv cflags;  /* host compiler: -D..., -std=c++17, -I<torch include>... */
	struct strv nvcc;    /* nvcc, for kernels that include torch headers: cflags + the
	                      * __CUDA_NO_HALF* defines and --expt-relaxed-constexpr */
	struct strv ldflags; /* -L<torch>/lib -lc10 -ltorch -ltorch_cpu -ltorch_python, and
	                      * with CUDA -L<cuda lib> -lcudart -lc10_cuda -ltorch_cuda */
	bool cudart_shared;  /* cudart comes from torch at run time: link -lcudart, never the
	                      * static runtime */
};

/* Fills f for extension x of kind torch or pybind11 built by interpreter py (whose torch was
 * probed; ti->present for kind torch) against toolkit tk (NULL: a CPU-only build). Flags the
 * config already gives (a -std=) are not repeated. Returns false with *err set when torch facts
 * the kind needs are missing (no torch, no lib dir). */
bool torchflags_for(struct arena *a, const struct extension_cfg *x, const struct interp *py,
                    const struct toolkit *tk, struct torch_flags *f, const char **err);
/* Returns the requirement a wheel built against torch "2.11" declares: "torch>=2.11,<2.12"
 * (torch's C++ ABI is only stable within a minor release); for a module built against torch's
 * stable ABI (stable), "torch>=2.11": that torch and every later one. */
const char *torchflags_requirement(struct arena *a, const char *torch, bool stable);
/* Returns the C++ standard flag torch.utils.cpp_extension of that torch passes: "-std=c++20"
 * from torch 2.12 on (torch 2.15's headers #error below C++20), else "-std=c++17" (also for
 * ti NULL or an unknown version). */
const char *torchflags_std(const struct torch_info *ti);
/* The same standard for a torch version ("2.12", "2.11.0"; NULL: torch 2.11's), spelled
 * without a prefix ("c++20"), for the Windows graph's nvcc -std= and cl.exe /std:. */
const char *torchflags_std_of(const char *torch);
/* Returns the TORCH_EXTENSION_NAME of a dotted module: its last part ("pkg._C" -> "_C"). */
const char *torchflags_extension_name(const char *module);

/* cpp_extension's COMMON_NVCC_FLAGS (torch's headers need them in device code), the same on
 * Linux and Windows; NULL-terminated. */
extern const char *const torchflags_nvcc_common[];

#endif
