/* github_internal.h: what the workflow writer's files share: the legs (one per OS and CUDA
 * toolkit) and the emitter's state. */
#ifndef CUWHEEL_CI_GITHUB_INTERNAL_H
#define CUWHEEL_CI_GITHUB_INTERNAL_H

#include "base/strbuf.h"
#include "ci/actions.h"
#include "ci/github.h"

/* What the jobs name besides the actions (ci/actions.h): every URL and pinned package. */
#define CI_PYPI_SIMPLE   "https://pypi.org/simple"
#define CI_NINJA_VERSION "1.13.0"
#define CI_NVIDIA_REPOS  "https://developer.download.nvidia.com/compute/cuda/repos"

/* Where each platform's cells are built (a row per platform of standards/platform.h). */
struct platform_info {
	const char *platform;
	const char *arch;     /* in image names and NVIDIA's repository paths: x86_64, sbsa */
	const char *img_arch; /* the manylinux image's: x86_64, aarch64 */
	const char *runner;   /* the runner when no container: Ubuntu 22.04, glibc 2.35 */
	const char *host;     /* the runner that hosts the container */
	bool windows;
};

/* One (platform, toolkit): one chain of jobs; its cells. */
struct leg {
	const struct platform_info *pi;
	const char *cuda, *nodot, *dash;
	int major, minor;
	size_t *cells;
	size_t n;
	const char *id;       /* cu130-linux_x86_64: the suffix of its jobs and artifacts */
	const char *toolkit;  /* "rpm", "apt", "pypi" or "network" */
	const char *packages; /* rpm/apt: the CUDA packages, pinned where known */
	const char *gcc;      /* rpm: the gcc-toolset nvcc accepts; "" the image's own */
	bool torch;           /* some cell has a torch: the jobs install it */
};

struct emit {
	struct arena *a;
	struct diag *d;
	const struct plan *p;
	const struct ci_github_opts *o;
	struct strbuf sb;
	struct leg *legs;
	size_t n_legs;
	const char *key;        /* kernel flags key */
	const char *remote;     /* the CUWHEEL_CACHE_REMOTE expression, or NULL */
	const char *dist;       /* dist dir relative to the project */
	const char *image;      /* the container image for x86_64; "" none */
	const char *ccache_max; /* CCACHE_MAXSIZE within the repository's cache quota */
	struct strv jobs;       /* every job id written, in order (the index needs them all) */
	bool torch;             /* some leg installs torch */
	size_t n_jobs;
};

/* The steps: checkout (with submodules when the repository has them), cuwheel, the sdist
 * (unless committed), an artifact download (by name, or pattern merged). */
void gh_checkout(struct emit *e);
void gh_sdist_step(struct emit *e);
void gh_download(struct emit *e, const char *name, const char *pattern, const char *path);
/* "uses: ACTION" of the pinned table, at indent ind, with its tag as a comment. */
void gh_uses(struct emit *e, int ind, enum ci_action act, bool item);
/* Jobs of one leg: Linux (kernels, wheels, GPU test) and Windows (graph, build, pack, test). */
void gh_linux_leg(struct emit *e, const struct leg *l);
void gh_windows_leg(struct emit *e, const struct leg *l);
/* The index job: after every leg, whatever it did. */
void gh_index_job(struct emit *e);
/* The opt-in publishing jobs ([tool.cuwheel.ci] publish), after the index job. */
void gh_publish_jobs(struct emit *e);
/* Pythons of some cells, in plan order, newline-separated (setup-python's list form). */
const char *gh_pythons(struct emit *e, const size_t *cells, size_t n);

#endif
