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

/* Where the jobs find the project, relative to the repository's root (the workspace). */
struct ci_source {
	const char *project;  /* the project dir ("." the root) */
	const char *config;   /* --config FILE, or NULL */
	const char *sdist;    /* the sdist the jobs build, or NULL (the checkout is the project) */
	bool sdist_committed; /* it is in the repository: no fetch step */
	const char *sdist_name;   /* fetched: the file name on the index ("gsplat-1.5.3.tar.gz") */
	const char *sdist_proj;   /* fetched: the project name on the index ("gsplat") */
	const char *sdist_sha256; /* fetched: its digest, checked before use */
	const char *dist;         /* the dist dir */
	bool submodules;          /* the repository has a .gitmodules: check out submodules */
};

struct cross_lock;

/* How many environment overrides a workflow can pin (cli/cmd_ci.c's table). */
#define CI_GITHUB_MAX_PINS 16

struct ci_github_opts {
	bool per_cell;                /* one Linux wheel job per cell, not one per leg */
	const char *gpu_label;        /* runner labels for GPU tests, comma-separated; NULL: the
	                               * wheel jobs run the tests themselves */
	struct ci_cuwheel cuwheel;    /* where the jobs get cuwheel (a commit, or a wheel) */
	const char *container;        /* Linux jobs' image; "" runs them on the runner itself */
	const struct strv *pypi_cuda; /* CUDA minors `cuwheel toolkit install` can provision */
	/* [tool.cuwheel.ci] aarch64 = "cross": linux_aarch64 legs on an x86_64 runner, with the
	 * parts of cross (the cross lock; NULL: none) and a host toolkit of lock_cuda (the
	 * minors the toolkit lock pins, from PyPI or Debian). */
	bool aarch64_cross;
	const struct cross_lock *cross;
	const struct strv *lock_cuda;
	struct ci_source src;
	const struct strv *publish; /* "release", "pages", "pypi-sdist" */
	const char *environment;    /* the publishing jobs' environment, or NULL */
	/* The overrides of the plan set when the workflow is written (CUWHEEL_MATRIX_PYTHON,
	 * _TORCH, _PLATFORM, CUWHEEL_BUILD, _SKIP, _LOCAL_VERSION, _ARCHS, ...; each value as the
	 * config read it, lists space-separated), pinned in its env in this order so every job
	 * plans the same cells, wheel names and flags. The CUDA axis is always pinned, as the
	 * plan expanded it. */
	struct {
		const char *name, *value;
	} pins[CI_GITHUB_MAX_PINS];
	size_t n_pins;
};

/* What the workflow holds, for the command's summary line. */
struct ci_github_stats {
	size_t n_legs;    /* (OS, toolkit) chains */
	size_t n_jobs;    /* jobs, the index included */
	size_t n_cells;   /* cells covered */
	size_t n_skipped; /* selected cells left out (no CUDA for their platform) */
};

/* GitHub's limits: a workflow file over 500 KB does not start, a matrix makes at most 256 jobs. */
#define CI_GITHUB_MAX_BYTES  (500 * 1000)
#define CI_GITHUB_MAX_MATRIX 256

/* Writes the workflow for every selected cell of plan (buildable here or not) into *out, an
 * arena string, deterministic for a given plan and options. Warnings go to d (cells left out,
 * a remote cache URL with credentials, a toolkit without pinned packages). False + diagnostic
 * when no cell can be placed, or the file would pass GitHub's size limit. */
bool ci_github_emit(struct arena *a, struct diag *d, const struct plan *p,
                    const struct ci_github_opts *o, char **out, struct ci_github_stats *st);

#endif
