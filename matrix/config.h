/* config.h: the project model read from pyproject.toml ([project] and [tool.cuwheel]) with
 * CUWHEEL_* environment overrides applied. */
#ifndef CUWHEEL_MATRIX_CONFIG_H
#define CUWHEEL_MATRIX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/toml.h"
#include "standards/cuda_arch.h"
#include "standards/project.h"

#define CUDART_KINDS(X)                                                                            \
	X(CUDART_STATIC, "static")                                                                 \
	X(CUDART_SHARED, "shared")
enum cudart_kind {
#define X(e, s) e,
	CUDART_KINDS(X)
#undef X
};

#define EXT_KINDS(X)                                                                               \
	X(EXT_CAPI, "capi")                                                                        \
	X(EXT_ABI3, "abi3")                                                                        \
	X(EXT_PYBIND11, "pybind11")                                                                \
	X(EXT_TORCH, "torch")
enum ext_kind {
#define X(e, s) e,
	EXT_KINDS(X)
#undef X
};

#define TRISTATES(X)                                                                               \
	X(TRI_AUTO, "auto")                                                                        \
	X(TRI_ON, "on")                                                                            \
	X(TRI_OFF, "off")
enum tristate {
#define X(e, s) e,
	TRISTATES(X)
#undef X
};

struct kernels_cfg {
	struct strv sources; /* globs as written, project-relative */
	struct strv files;   /* resolved sources, project-relative, sorted */
	struct strv include_dirs;
	struct strv defines; /* NAME or NAME=VALUE */
	struct strv nvcc_flags;
	struct strv host_flags;
	struct strv cxx_flags; /* only for the .c/.cpp kernel sources, never nvcc */
	struct arch *archs;
	size_t n_archs;
	const char *archs_text; /* as written, for messages */
	enum cudart_kind cudart;
	bool rdc;
	enum tristate uses_torch; /* kernels include torch headers: auto = detect from depfiles */
	const struct toml_value *where; /* [tool.cuwheel.kernels], for messages */
};

struct extension_cfg {
	const char *module; /* dotted: "tinyraster._C" */
	enum ext_kind kind;
	struct strv sources; /* globs as written */
	struct strv files;   /* resolved */
	struct strv include_dirs;
	struct strv defines;
	struct strv cflags;
	struct strv nvcc_flags; /* own_nvcc_flags: its own .cu sources' nvcc flags, in place
	                         * of [tool.cuwheel.kernels] nvcc-flags */
	bool own_nvcc_flags;    /* nvcc-flags was given (an empty list is a flag set too) */
	struct strv ldflags;
	struct strv libraries;
	bool no_abi_suffix;      /* abi-suffix = false: "csrc.so", not "csrc.cpython-312-...so" */
	bool loaded_by_path;     /* loaded-by = "path": a shared library its package loads by
	                          * path (torch.ops.load_library), no PyInit_ needed */
	enum tristate pch;       /* torch kind: force a precompiled torch/all.h first;
	                          * auto = where the preprocessor says it keeps the meaning */
	struct strv pch_exclude; /* globs of sources compiled without it */
	bool python_free_off;    /* torch kind: python-free = "off", no source is proven
	                          * Python-free (every one that includes Python's headers is
	                          * compiled per Python) */
	bool abi3;               /* torch kind: abi3 = true, a limited-API module for every
	                          * Python (Py_LIMITED_API, no libtorch_python), torch >= 2.6 */
	bool torch_stable;       /* torch kind: torch-abi = "stable", built once against the
	                          * oldest torch of the axis, for it and every later torch */
	const struct toml_value *where;
};

/* One include/exclude entry: NULL fields are wildcards. */
struct matrix_entry {
	const char *python, *cuda, *torch, *platform;
	const struct toml_value *where;
};

struct matrix_cfg {
	struct strv python;   /* "3.10", "3.13t" */
	struct strv cuda;     /* "13.0" */
	struct strv torch;    /* "2.6"; empty: no torch axis */
	struct strv platform; /* "linux_x86_64", "win_amd64" */
	struct matrix_entry *include;
	size_t n_include;
	struct matrix_entry *exclude;
	size_t n_exclude;
	struct strv build; /* identifier globs; empty = all */
	struct strv skip;
	const char *local_version; /* template, e.g. "cu{cuda_nodot}" */
	bool abi3_per_python;      /* abi3 kind: also build per-Python wheels */
};

struct test_cfg {
	struct strv requires;
	const char *command; /* shell command run from a temp dir; {project} is replaced */
	struct strv find_links;
	bool torch_from_index;      /* torch = "index": pip resolves torch in the test venv; else
	                             * ("build") the venv sees the torch the cell was built with */
	struct strv torch_compat;   /* torch-compat: "MAJOR.MINOR" torches each ordinary torch
	                             * wheel is also tried with (import + test command) */
	bool torch_requires_tested; /* torch-requires = "tested": Requires-Dist names the range
	                             * of minors that passed, not the build's own minor */
};

struct cache_cfg {
	enum tristate ccache;
	const char *remote; /* redis://... or http://... */
	const char *dir;    /* ccache dir; NULL: ccache's default */
};

struct audit_cfg {
	const char *min_manylinux; /* e.g. "manylinux_2_28"; NULL: any */
	bool strict;               /* warnings fail the cell */
};

/* [tool.cuwheel.ci] cuwheel: what the CI jobs install cuwheel from. Only things that exist:
 * cuwheel's repository at a commit (built in the job), or a wheel by URL with its digest. */
struct ci_cuwheel {
	const char *git, *rev;    /* {git = URL, rev = 40 hex digits} */
	const char *url, *sha256; /* {url = URL, sha256 = 64 hex digits} */
};

struct ci_cfg {
	struct ci_cuwheel cuwheel; /* nothing set: `ci github` refuses (no release to name) */
	const char *container;     /* image the Linux CI jobs run in; "" none; NULL: the default */
	struct strv publish;       /* "release", "pages", "pypi-sdist" (opt-in, in that order) */
	const char *environment;   /* the publishing jobs' GitHub environment, or NULL */
	bool aarch64_cross;        /* aarch64 = "cross": linux_aarch64 legs cross-built on x86_64
	                            * runners and tested under qemu; default "native" (arm runners) */
};

struct config {
	const char *project_dir; /* absolute */
	const char *pyproject;   /* absolute path of pyproject.toml */
	struct source src;
	const struct toml_value *root;
	struct project_meta project;
	struct kernels_cfg kernels;
	struct extension_cfg *extensions;
	size_t n_extensions;
	struct strv packages;          /* project-relative dirs of pure-Python packages to ship */
	bool packages_found;           /* packages = "find": the top-level dirs with __init__.py */
	bool ship_hidden;              /* ship dot-files of the packages (an sdist chose them) */
	struct str_pairs python_files; /* python-files: wheel path -> project-relative file */
	enum tristate openmp; /* -fopenmp -DAT_PARALLEL_OPENMP for C/C++ sources; auto: when
	                       * the cell's torch was built with OpenMP */
	struct matrix_cfg matrix;
	struct test_cfg test;
	struct str_pairs toolkits; /* version -> path */
	struct str_pairs pythons;  /* version -> path; a version may repeat (one per torch) */
	struct cache_cfg cache;
	struct audit_cfg audit;
	struct ci_cfg ci;
	const char *build_dir; /* absolute */
	const char *dist_dir;  /* absolute */
	int compression;       /* 0 = stored, 1..9 deflate level */
	/* Where each metadata field came from ("PKG-INFO:4", "gsplat.toml:7:1", "default"):
	 * field name -> origin, in the order plan shows them. */
	struct str_pairs meta_origin;
	const char *config_file; /* --config FILE (absolute), or NULL: pyproject.toml */
	const char *sdist;       /* the sdist the project was unpacked from, or NULL */
	const char *sdist_shown; /* that sdist as the user named it ("demo-1.0.tar.gz"), or NULL */
	bool project_partial;    /* [project] may omit name and version (PKG-INFO has them) */
	const char *base_dir;    /* what build-dir and dist-dir are relative to: the project,
	                          * or with --config the config file's directory */
	const char *const *env;  /* the environment config_load was given (base/env.h): what
	                          * discovery and the build graph read; NULL: an empty one */
};

/* Loads project_dir/pyproject.toml. env is a NULL-terminated environ-style list (CUWHEEL_*
 * overrides; kept in cfg->env for discovery and the build graph) or NULL. Returns false after
 * reporting every error found. */
bool config_load(struct arena *a, struct diag *d, const char *project_dir, const char *const *env,
                 struct config *cfg);
/* Loads project_dir with config_file (absolute) as its manifest instead of pyproject.toml:
 * [tool.cuwheel] from it, the metadata from project_dir/PKG-INFO unless it has [project]
 * (whose keys then override PKG-INFO's). sdist (or NULL) is only recorded. Returns false after
 * reporting every error found. */
bool config_load_with(struct arena *a, struct diag *d, const char *project_dir,
                      const char *config_file, const char *sdist, const char *const *env,
                      struct config *cfg);
/* config_load_with for a tree unpacked from an sdist: sdist is its real path (recorded),
 * sdist_shown the name the user gave it, used in messages about its members
 * ("demo-1.0.tar.gz!demo-1.0/PKG-INFO:3:1"). */
bool config_load_sdist(struct arena *a, struct diag *d, const char *tree, const char *config_file,
                       const char *sdist, const char *sdist_shown, const char *const *env,
                       struct config *cfg);
/* [tool.cuwheel] setup-env of tool (a TOML table, or NULL when absent): the environment
 * variables setup.py's capture runs with, appended to out as NAME=VALUE. Each key a variable
 * name ([A-Za-z_][A-Za-z0-9_]*) that is not one the capture sets itself or one that makes
 * Python or the loader run or load code (PATH, HOME, LD_*, PYTHON*, ...), each value a string
 * without control characters: a value is only ever the variable's value, never a command.
 * Returns false after a located error (src's file:line:col) for each refused entry. */
bool config_setup_env(struct arena *a, struct diag *d, const struct source *src,
                      const struct toml_value *tool, struct strv *out);
/* True when m is a dotted Python module name ("pkg._C": identifiers joined by '.'). */
bool config_module_name_valid(const char *m);
/* Appends to out (once each) the dotted modules of cfg's extensions with loaded-by = "path":
 * the shared libraries their package loads by path, of which the audit asks no PyInit_. */
void config_libraries(struct arena *a, const struct config *cfg, struct strv *out);
/* Appends to out (once each) what a wheel of cfg may hold at its root: its packages' names (the
 * last part of each path), the top-level names of its python-files, its extension modules that
 * have no package; the audit's declared names (audit_opts.declared, `internal finish
 * --declare`). */
void config_declared(struct arena *a, const struct config *cfg, struct strv *out);
/* Returns the name of a tristate: "auto", "on" or "off". */
const char *tristate_name(enum tristate t);

#endif
