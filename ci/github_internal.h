/* github_internal.h: what the workflow writer's files share: the legs (one per OS and CUDA
 * toolkit) and the emitter's state. */
#ifndef CUWHEEL_CI_GITHUB_INTERNAL_H
#define CUWHEEL_CI_GITHUB_INTERNAL_H

#include "base/strbuf.h"
#include "ci/actions.h"
#include "ci/github.h"
#include "ci/torch_builds.h"

/* What the jobs name besides the actions (ci/actions.h): every URL and pinned package. */
#define CI_PYPI_SIMPLE   "https://pypi.org/simple"
#define CI_NINJA_VERSION "1.13.0"
/* "Published GitHub Pages sites may be no larger than 1 GB" (GitHub Pages limits). */
#define CI_PAGES_LIMIT "1000000000"

/* The jobs' scripts and Python helpers: real files under ci/, embedded at build time as C arrays
 * named for the file (cmake/embed.cmake; free_disk.sh -> free_disk_sh). A script whose opening
 * comment has a line "# after: A.sh B.sh" runs after those, in one step (gh_script). */
#define CI_SCRIPTS(X)                                                                              \
	X(free_disk_sh)                                                                            \
	X(system_packages_sh)                                                                      \
	X(install_cuwheel_git_sh)                                                                  \
	X(install_cuwheel_wheel_sh)                                                                \
	X(find_python_sh)                                                                          \
	X(install_torch_sh)                                                                        \
	X(source_args_sh)                                                                          \
	X(library_args_sh)                                                                         \
	X(jobs_from_memory_sh)                                                                     \
	X(install_cuda_sh)                                                                         \
	X(cross_packages_sh)                                                                       \
	X(install_cross_sh)                                                                        \
	X(build_kernels_sh)                                                                        \
	X(build_wheels_sh)                                                                         \
	X(test_wheels_sh)                                                                          \
	X(win_graph_sh)                                                                            \
	X(win_pack_sh)                                                                             \
	X(index_site_sh)                                                                           \
	X(fail_missing_sh)                                                                         \
	X(release_upload_sh)                                                                       \
	X(test_shared_sh)                                                                          \
	X(pages_size_sh)                                                                           \
	X(pages_site_sh)                                                                           \
	X(fetch_sdist_py)                                                                          \
	X(index_select_py)                                                                         \
	X(windows_test_py)
#define X(name) extern const unsigned char name[];
CI_SCRIPTS(X)
#undef X
/* The text of an embedded script. */
#define CI_SCRIPT(name) ((const char *)(name))

/* Where each platform's cells are built (a row per platform of standards/platform.h). */
struct platform_info {
	const char *platform;
	const char *arch;     /* in image names and NVIDIA's repository paths: x86_64, sbsa */
	const char *img_arch; /* the manylinux image's: x86_64, aarch64 */
	const char *runner;   /* the runner when no container: Ubuntu 22.04, glibc 2.35 */
	const char *host;     /* the runner that hosts the container */
	bool windows;
	bool cross; /* built on an x86_64 runner with cuwheel's cross parts, tested under qemu */
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
	struct strv parts;    /* a cross leg: the cross parts its cells need ("gcc", ...) */
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

/* What a matrix job reads from its entry: written as these expressions, never as data. */
extern const char gh_matrix_python[], gh_matrix_venvs[], gh_matrix_cell[];
/* Appends "key: v" at indent ind: one of the gh_matrix_* expressions as it is, any other v as
 * data (yaml_kv). */
void gh_kv(struct emit *e, int ind, const char *key, const char *v);

/* Opens job id. name: the emitter's text (leg ids, gh_matrix_*); needs: job ids
 * (NULL-terminated) or NULL; image: the container, or NULL. */
void gh_job_open(struct emit *e, const char *id, const char *name, const char *runs_on,
                 const char *const *needs, const char *image, int minutes);
/* The image a Linux job of leg l runs in, NULL for none; the runner that hosts it. */
const char *gh_image_for(struct emit *e, const struct leg *l);
const char *gh_host(struct emit *e, const struct leg *l);
/* env: of a Linux leg's jobs: the leg, its toolkit and how it is installed; cells (data, or
 * gh_matrix_cell) when the job builds some. */
void gh_leg_env(struct emit *e, const struct leg *l, const char *cells);
/* The steps before a Linux job's own: checkout, disk (with cuda), build tools, cuwheel, sdist,
 * CUDA (with cuda) and torch (venvs: "PY RELEASE INDEX" lines or gh_matrix_venvs; NULL for
 * none). pythons: setup-python's list, when the job runs on the runner itself. */
void gh_linux_setup(struct emit *e, const struct leg *l, bool cuda, const char *pythons,
                    const char *venvs);
/* Where the leg's venv of torch b comes from: "pypi", "cuXYZ" (PyTorch's index), or NULL when
 * neither has a build for the leg's CUDA major. */
const char *gh_torch_index(struct emit *e, const struct leg *l, const struct torch_build *b);
/* The test jobs of a leg's shared wheels (abi3 or stable-ABI torch): one per (Python, torch)
 * the config names that PyTorch publishes; NULL when the leg has none, else the job id. */
const char *gh_shared_tests(struct emit *e, const struct leg *l);
/* True for a shared torch cell: one abi3 wheel for every Python (with torch's stable ABI, for
 * every later torch too). */
bool gh_shared(const struct cell *c);
/* The id of that job for leg l, or NULL (the index gates the shared cells on it). */
const char *gh_shared_job(struct emit *e, const struct leg *l);

/* The step that installs cuwheel (built at the pinned commit, or its wheel by digest). */
void gh_install_cuwheel(struct emit *e);
/* The steps: checkout (with submodules when the repository has them), cuwheel, the sdist
 * (unless committed), an artifact download (by name, or pattern merged). */
void gh_checkout(struct emit *e);
void gh_sdist_step(struct emit *e);
void gh_download(struct emit *e, const char *name, const char *pattern, const char *path);
/* script (CI_SCRIPT) after the scripts its "# after:" line names ("# after: source_args.sh"). */
const char *gh_script(struct emit *e, const char *script);
/* For a project whose config has extensions with loaded-by = "path": "LIBRARIES: <their
 * modules>" at indent ind of a step's env:; nothing for any other. */
void gh_libraries_env(struct emit *e, int ind);
/* script with each `cuwheel index` and `cuwheel retag` it runs given those libraries
 * (library_args.sh before it, reading LIBRARIES); script itself for any other project. */
const char *gh_with_libraries(struct emit *e, const char *script);
/* "uses: ACTION" of the pinned table, at indent ind, with its tag as a comment. */
void gh_uses(struct emit *e, int ind, enum ci_action act, bool item);
/* aarch64 = "cross": whether cell c can be cross-built with the parts cuwheel's locks pin (else
 * a warning says why it is left out); adds the parts it needs to parts when not NULL. */
bool gh_cross_cell(struct emit *e, const struct cell *c, struct strv *parts);
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
