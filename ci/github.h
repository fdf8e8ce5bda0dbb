/* github.h: a GitHub Actions workflow for a whole plan, one chain of jobs per leg (OS, CUDA
 * toolkit) so that a failing leg loses only its own cells, and an index job that runs after
 * every leg whatever it did, publishes the wheels that exist and fails the run for the rest. */
#ifndef CUWHEEL_CI_GITHUB_H
#define CUWHEEL_CI_GITHUB_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/matrix.h"

/* The image Linux jobs run in unless [tool.cuwheel.ci] container says otherwise. */
#define CI_DEFAULT_CONTAINER "quay.io/pypa/manylinux_2_28_x86_64"

struct ci_github_opts {
	bool per_cell;                /* one Linux wheel job per cell, not one per leg */
	const char *gpu_label;        /* runner labels for GPU tests, comma-separated; NULL: the
	                               * wheel jobs run the tests themselves */
	const char *cuwheel;          /* pip requirement or URL the jobs install cuwheel from */
	const char *container;        /* Linux jobs' image; "" runs them on the runner itself */
	const struct strv *pypi_cuda; /* CUDA minors `cuwheel toolkit install` can provision */
};

/* What the workflow holds, for the command's summary line. */
struct ci_github_stats {
	size_t n_legs;    /* (OS, toolkit) chains */
	size_t n_jobs;    /* jobs, the index included */
	size_t n_cells;   /* cells covered */
	size_t n_skipped; /* selected cells left out (no CUDA for their platform) */
};

/* Writes the workflow for every selected cell of plan (buildable here or not) into *out, an
 * arena string, deterministic for a given plan and options. Warnings go to d (cells left out,
 * a remote cache URL with credentials, a toolkit without pinned packages). False + diagnostic
 * when no cell can be placed. */
bool ci_github_emit(struct arena *a, struct diag *d, const struct plan *p,
                    const struct ci_github_opts *o, char **out, struct ci_github_stats *st);
/* Returns the short digest (12 hex digits) of the kernel settings that change the archives
 * (sources, flags, archs, cudart, rdc): the flags part of artifact and cache keys. */
char *ci_kernel_flags_key(struct arena *a, const struct config *cfg);

#endif
