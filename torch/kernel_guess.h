/* kernel_guess.h: what a kernel source includes of torch's and Python's headers, guessed from
 * its text before any preprocessor ran: the kernels' commands while the scans run (`cuwheel
 * build` starts their compiles early, and its graph uses one only where the scans decided
 * the same command). */
#ifndef CUWHEEL_TORCH_KERNEL_GUESS_H
#define CUWHEEL_TORCH_KERNEL_GUESS_H

#include <stdbool.h>

#include "base/arena.h"

struct kernel_guess {
	const char *torch;  /* the first torch header it includes ("torch/extension.h",
	                     * "ATen/ATen.h", "c10/..."), or NULL */
	const char *python; /* "Python.h" where it includes Python's headers (Python.h,
	                     * pybind11/, or torch/extension.h, torch/python.h, torch/torch.h,
	                     * which include them under torch's flags), else NULL */
};

/* Whether an #include name is torch's (torch/, ATen/, c10/). */
bool torch_header_name(const char *name);

/* Reads the source at path (nvcc's .cu when cu: __CUDACC__ is defined) and the headers it
 * includes with "..." or <...> that are found in its own dir or in dirs (absolute) and are
 * not under a dir holding torch's headers, each once, at most 64 deep. An #include counts
 * unless it is in a branch that is off for the compiler: #if 0, and #ifdef/#ifndef/#if
 * [!]defined(__CUDACC__) (each #else flips a known branch); any other condition counts as
 * taken. An unreadable file is left out. */
void kernel_guess(struct arena *a, const char *path, bool cu, const struct strv *dirs,
                  struct kernel_guess *out);

#endif
