/* plainflags.h: the compile flags of the sources of an extension of kind capi, abi3 or pybind11
 * (not torch): per Python, as every binding source is compiled, or once per (toolkit, flags)
 * for every Python, for a source whose include closure holds no Python header (a kernel .cu or
 * .cpp that an extension lists among its own sources: torch_plan.h decides which). One
 * function writes each, so the preprocessor's decision and the graph's compile take the same
 * flags. */
#ifndef CUWHEEL_TORCH_PLAINFLAGS_H
#define CUWHEEL_TORCH_PLAINFLAGS_H

#include <stdbool.h>

#include "base/arena.h"
#include "matrix/matrix.h"
#include "torch/torchflags.h"

/* Returns the host compiler of source src of extension x for toolkit tk: the toolkit's own
 * (the gcc its nvcc calls) or cc/cxx, C++ for a .cpp/.cc/.cxx and for any non-.c source of a
 * pybind11 extension. */
const char *plainflags_cc(const struct toolkit *tk, const struct extension_cfg *x, const char *src,
                          const char *cc, const char *cxx);
/* Appends the host compiler flags of .c/.cpp source src of extension x in cell c (no compiler,
 * no -c/-o): -O2 -DNDEBUG, -fPIC, hidden visibility, the prefix map of proj (the project as
 * seen from the build dir), the include dirs, CUDA's, then per Python (shared false) the
 * Python include dir and, in an abi3 cell, Py_LIMITED_API; pybind11's flags (tf) for a C++
 * source of a pybind11 extension (shared: less pybind11's own include dir, which a source
 * without Python's headers does not read), the defines, OpenMP's and the extension's cflags. */
void plainflags_host(struct arena *a, const struct config *cfg, const struct extension_cfg *x,
                     const struct cell *c, const struct toolkit *tk, const struct torch_flags *tf,
                     const char *proj, const char *src, bool shared, struct strv *out);
/* Appends the nvcc flags of a .cu source of extension x in cell c, less cuwheel's own (-O3,
 * -Xcompiler=-fPIC and visibility, the prefix map, the toolkit's and arch flags): the
 * extension's include dirs, per Python (shared false) the Python include dir, its defines, the
 * kernels' host-flags (-Xcompiler=), its nvcc-flags (else the kernels'), then -std=c++17 unless
 * those hold a -std=. */
void plainflags_cu(struct arena *a, const struct config *cfg, const struct extension_cfg *x,
                   const struct cell *c, const char *proj, bool shared, struct strv *out);

#endif
