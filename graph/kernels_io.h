/* kernels_io.h: moving kernel archives between build stages (`--stage kernels --export DIR`,
 * `--stage wheels --import DIR`) with a manifest that says what they were built from. */
#ifndef CUWHEEL_GRAPH_KERNELS_IO_H
#define CUWHEEL_GRAPH_KERNELS_IO_H

#include <stdbool.h>

#include "graph/buildgraph.h"

/* Copies every archive of the graph into dir with manifest.json (toolkit, nvcc version, key,
 * targets, archive sha256, sha256 of each kernel source). False + diagnostic on error. */
bool kernels_export(struct arena *a, struct diag *d, const struct plan *p,
                    const struct build_graph *g, const char *dir);
/* Places the archives the graph needs from dir into the build dir after checking the manifest
 * against the plan (key, toolkit version, source hashes, archive hash); refuses a mismatch
 * naming what differs. */
bool kernels_import(struct arena *a, struct diag *d, const struct plan *p,
                    const struct build_graph *g, const char *dir);

#endif
