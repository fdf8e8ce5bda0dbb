/* github.h: a GitHub Actions workflow for a whole plan: the kernels built once per (OS, CUDA
 * toolkit) and uploaded, wheel jobs that link against them, optional GPU tests, and a final
 * job that merges dist/ and writes the index. */
#ifndef CUWHEEL_CI_GITHUB_H
#define CUWHEEL_CI_GITHUB_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/matrix.h"

struct ci_github_opts {
	bool per_cell;                /* one wheel job per cell, not one per (OS, toolkit) */
	const char *gpu_label;        /* runner labels for GPU tests, comma-separated; NULL: the
	                               * wheel jobs run the tests themselves */
	bool cuwheel_from_checkout;   /* the repository is cuwheel's own: build it from there */
	const char *cuwheel_repo;     /* otherwise: owner/name of cuwheel to check out and build */
	const char *cuwheel_ref;      /* and its tag or commit */
	const struct strv *pypi_cuda; /* CUDA minors `cuwheel toolkit install` can provision */
};

/* What the workflow holds, for the command's summary line. */
struct ci_github_stats {
	size_t n_kernels; /* kernels matrix entries: one per (OS, toolkit) */
	size_t n_wheels;  /* wheels matrix entries */
	size_t n_tests;   /* GPU test matrix entries */
	size_t n_cells;   /* cells covered */
	size_t n_skipped; /* selected cells left out (no CUDA for their platform) */
};

/* Writes the workflow for every selected cell of plan (buildable here or not) into *out, an
 * arena string, deterministic for a given plan and options. Warnings go to d (cells left out,
 * a remote cache URL with credentials). False + diagnostic when no cell can be placed. */
bool ci_github_emit(struct arena *a, struct diag *d, const struct plan *p,
                    const struct ci_github_opts *o, char **out, struct ci_github_stats *st);
/* Returns the short digest (12 hex digits) of the kernel settings that change the archives
 * (sources, flags, archs, cudart, rdc): the flags part of artifact and cache keys. */
char *ci_kernel_flags_key(struct arena *a, const struct config *cfg);

#endif
