/* torch_builds.h: what PyTorch publishes (ci/torch_builds.def): for each torch minor, the
 * release the workflow pins, the CUDA of PyPI's build, the CUDA builds of PyTorch's index and
 * the Pythons the release has wheels for. `plan`, `build` and `ci github` decide by it which
 * torch cells exist. */
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
	const char *pythons; /* "3.9 3.10 3.11 3.12 3.13": the Pythons it has wheels for */
};

/* Returns the row of torch minor ("2.6"), or NULL. */
const struct torch_build *torch_build_find(const char *minor);
/* True when the row publishes a build of its torch for CUDA cuda ("13.0"). */
bool torch_build_has_cuda(const struct torch_build *b, const char *cuda);
/* True when the row has wheels for Python py ("3.12", "3.13t"). */
bool torch_build_has_python(const struct torch_build *b, const char *py);
/* The Python a shared cell (abi3, or torch's stable ABI) of p is built with: the oldest of the
 * python axis at or above the cell's own that its torch has wheels for; the cell's own Python
 * for every other cell, and when none qualifies. */
const char *torch_build_python(const struct plan *p, const struct cell *c);
/* Unselects each selected torch cell of p that PyTorch does not publish by the table, with the
 * reason as unselected_by, and recounts the selected and buildable cells: `plan` and `build`
 * show the cells `ci github` writes. Torches the table does not know are left as they are. */
void torch_builds_mark(struct arena *a, struct plan *p);
/* The same for the workflow, with a warning per cell left out; the local pairing (the torch
 * installed here) is undone first. False + error when a torch is not in the table, or no
 * selected cell is left. */
bool torch_builds_pair(struct arena *a, struct diag *d, struct plan *p);

#endif
