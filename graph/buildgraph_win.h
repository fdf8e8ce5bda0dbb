/* buildgraph_win.h: the Windows half of a build, written on Linux. For the win_amd64 cells,
 * `cuwheel build --stage win-graph --export DIR` writes a self-contained directory that a
 * Windows runner builds with nothing but Python, ninja, MSVC and CUDA:
 *   DIR/build.ninja   nvcc (kernels once per toolkit, lib.exe archive), cl.exe (the binding
 *                     per Python), link.exe /DLL (the .pyd, written into DIR/stage/<cell>/)
 *   DIR/probe.py      run first on the runner: finds cl/link/lib, each CUDA toolkit, each
 *                     Python (and its torch) and writes DIR/paths.ninja, which build.ninja
 *                     includes
 *   DIR/src/...       the project's sources, include dirs (project-relative paths)
 *   DIR/stage/<cell>/ the pure-Python packages, staged here; ninja adds the .pyd
 * `cuwheel build --stage win-pack --import DIR` packs and audits those trees on Linux. */
#ifndef CUWHEEL_GRAPH_BUILDGRAPH_WIN_H
#define CUWHEEL_GRAPH_BUILDGRAPH_WIN_H

#include <stdbool.h>

#include "matrix/matrix.h"

/* What an export holds. */
struct win_export {
	struct strv cells; /* ids of the cells in the graph */
	size_t n_toolkits; /* kernel archives */
	char *ninja;       /* build.ninja's text */
	char *probe;       /* probe.py's text */
};

/* True for the cells the Windows graph builds: selected and win_amd64. */
bool wingraph_cell(const struct cell *c);
/* The module's path inside the staged tree: "tinyraster/_C.cp312-win_amd64.pyd" (a
 * version-specific module) or "tinyraster/_C.pyd" (abi3, torch's abi-less name is not used). */
const char *wingraph_module_path(struct arena *a, const struct extension_cfg *x,
                                 const struct cell *c);
/* Renders build.ninja and probe.py for the Windows cells of plan into out: a pure function of
 * the plan (no file read or written, nothing probed: probe.py finds the runner's tools there).
 * False + diagnostic when the project cannot be built there (a pybind11 extension, kernels that
 * include torch headers, a path a ninja file cannot hold). */
bool wingraph_render(struct arena *a, struct diag *d, const struct plan *plan,
                     struct win_export *out);
/* Exports the directory of x (what wingraph_render made of plan): lists the project's sources
 * it copies (read before anything is written), then writes build.ninja, probe.py, the sources
 * and the staged packages into a temp sibling renamed over dir, so dir is either the previous
 * export or the new one. A dir that exists and is not an export (no build.ninja written by
 * cuwheel) is refused. False + diagnostic. */
bool wingraph_export(struct arena *a, struct diag *d, const struct plan *plan, const char *dir,
                     const struct win_export *x);

#endif
