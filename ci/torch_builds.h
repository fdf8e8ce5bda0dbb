/* torch_builds.h: what PyTorch publishes (ci/torch_builds.def): for each torch minor, the
 * release the workflow pins, the CUDA of PyPI's build and the CUDA builds of PyTorch's index. */
#ifndef CUWHEEL_CI_TORCH_BUILDS_H
#define CUWHEEL_CI_TORCH_BUILDS_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/matrix.h"

/* PyTorch's per-CUDA index: BASE/cu126 holds torch's CUDA 12.6 builds. */
#define CI_TORCH_INDEX "https://download.pytorch.org/whl"

struct torch_build {
	const char *minor;   /* "2.6" */
	const char *release; /* "2.6.0": what the workflow installs */
	const char *pypi;    /* "12.4": the CUDA of `pip install torch==2.6.0` from PyPI */
	const char *cudas;   /* "11.8 12.4 12.6": the builds on PyTorch's index */
};

/* Returns the row of torch minor ("2.6"), or NULL. */
const struct torch_build *torch_build_find(const char *minor);
/* Leaves out (unselects, with a warning) every selected torch cell of p whose (torch, CUDA)
 * PyTorch does not publish, by the table only. False + error when a torch is not in the
 * table, or no selected cell is left. */
bool torch_builds_pair(struct arena *a, struct diag *d, struct plan *p);

#endif
