/* buildflags.h: the flags of C/C++ sources that come from config keys rather than from the
 * compiler's kind: kernels' cxx-flags and OpenMP (openmp = auto decides as torch's own build
 * does, from torch.__config__.parallel_info()). */
#ifndef CUWHEEL_KERNELS_BUILDFLAGS_H
#define CUWHEEL_KERNELS_BUILDFLAGS_H

#include <stdbool.h>

#include "base/arena.h"
#include "matrix/config.h"
#include "toolchain/discover.h"

/* Appends the config's extra flags for one C/C++ source (not .cu) to out: cxx-flags for kernel
 * sources, then -DAT_PARALLEL_OPENMP -fopenmp when OpenMP is on (gsplat's setup.py adds both
 * to its cxx flags; torch's headers then use OpenMP for at::parallel_for). */
void buildflags_host(struct arena *a, const struct config *cfg, const struct torch_info *ti,
                     bool kernel, struct strv *out);

#endif
