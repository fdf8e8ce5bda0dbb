/* discover.h: what this machine has: CUDA toolkits and Python interpreters (with torch). */
#ifndef CUWHEEL_TOOLCHAIN_DISCOVER_H
#define CUWHEEL_TOOLCHAIN_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/project.h"
#include "toolchain/provision_cross.h"
#include "toolchain/toolchain.h"

struct toolkit {
	const char *root;    /* absolute, resolved */
	const char *nvcc;    /* absolute path of nvcc */
	const char *version; /* "13.0.88" as nvcc reports it */
	int major, minor;
	const char *found_by; /* "explicit", "CUDA_HOME", "PATH", "/usr/local/cuda-*", "cache" */
	int *sm;              /* real targets nvcc can generate code for: 75, 80, 90, ... */
	size_t n_sm;
	int *compute; /* virtual targets (PTX): 75, 80, ... */
	size_t n_compute;
	bool has_cudart_static; /* lib64/libcudart_static.a or lib/ */
	const char *lib_dir;    /* the directory holding libcudart* */
	const char *include_dir;
	unsigned nvcc_lacks;       /* TOOLCHAIN_LACKS_*: options cuwheel adds that it lacks */
	struct host_compiler host; /* the gcc its nvcc calls and its cells' bindings use */
	/* A cross toolkit (discover_cross_toolkit): the platform it builds for, and nvcc's
	 * -target-dir (the host's, whose headers are the target's too) when the root has
	 * targets/; both NULL for the host's own toolkits. */
	const char *platform, *target_dir;
};

struct torch_info {
	bool present;
	const char *version;       /* "2.11.0+cu130" */
	const char *version_short; /* "2.11" */
	const char *cuda;          /* "13.0", or NULL for CPU builds */
	int cxx11_abi;             /* torch._C._GLIBCXX_USE_CXX11_ABI: 0/1, -1 unknown */
	int openmp;                /* parallel_info() says "backend: OpenMP": 0/1, -1 unknown */
	struct strv include_dirs;
	const char *lib_dir;
	const char *pybind11_compiler_type, *pybind11_stdlib, *pybind11_build_abi;
	/* The ABI defines torch.utils.cpp_extension itself adds (-DPYBIND11_*=...,
	 * -D_GLIBCXX_USE_CXX11_ABI=N), asked from that torch; none for torch 2.11. */
	struct strv abi_flags;
	bool abi_flags_known; /* false: cpp_extension could not be imported (no setuptools) */
	const char *error;    /* why import torch failed, when it did and torch was asked for */
	/* Read from torch's files, torch not imported (discover_opts.torch_files): where they could
	 * not answer as the import would, why (unread), and present is false. */
	bool from_files;
	const char *unread;
	/* A cross torch (discover_cross_torch): the platform its wheel is for; NULL: this
	 * machine's torch, probed. */
	const char *platform;
};

struct interp {
	const char *path;    /* as found */
	const char *version; /* "3.12.1" */
	int major, minor;
	const char *implementation; /* "cpython" */
	const char *abiflags;       /* "", "t" */
	bool freethreaded;
	const char *ext_suffix; /* ".cpython-312-x86_64-linux-gnu.so" */
	const char *soabi;
	const char *include_dir;
	const char *platform; /* wheel platform tag: "linux_x86_64" */
	const char *found_by; /* "explicit", "PATH", "pyenv", "manylinux", "uv" */
	size_t order;         /* the candidate's rank in discovery (explicit ones first) */
	struct torch_info torch;
	struct {
		const char *include_dir; /* pybind11.get_include(), where `import pybind11` works */
		const char *version;     /* pybind11.__version__ */
		const char *error;       /* why the import failed */
	} pybind11;
};

/* Where discovery looked and what it found there or why not. */
struct looked {
	const char *what;   /* "toolkit" or "python" */
	const char *where;  /* a path or a variable */
	const char *result; /* "found 13.0.88", "no nvcc", "not a directory", ... */
};

struct discovery {
	struct toolkit *toolkits; /* sorted by version, newest first; no duplicates by root */
	size_t n_toolkits;
	struct interp *pythons; /* sorted by version, newest first; one per (version, abiflags,
	                         * torch version): a version's first is the one found first */
	size_t n_pythons;
	struct looked *looked;
	size_t n_looked, cap_looked;
	struct cross_installed *cross; /* the cross parts in cuwheel's cache (provision_cross.h) */
	size_t n_cross;
};

/* What discovery looks at besides the machine: the environment and the toolkits and
 * interpreters a project names (matrix/discover_project.h makes one from a config). */
struct discover_request {
	/* PATH, HOME, CUDA_HOME, CUDA_PATH, PYENV_*, UV_*, XDG_*, CC, CXX, CUWHEEL_CACHE_DIR */
	const char *const *env;
	/* Explicit relative paths resolve against it, and pyenv's .python-version is looked for
	 * from it up; NULL: neither. */
	const char *project_dir;
	struct str_pairs toolkits; /* explicit toolkits: version -> path */
	struct str_pairs pythons;  /* explicit interpreters: version -> path (may repeat) */
};

/* Knobs for discover_run(); a zeroed struct means the defaults. */
struct discover_opts {
	const char *sysroot; /* prefix for /usr/local/cuda*, /opt/cuda*, /opt/python (tests) */
	bool probe_torch;    /* import torch in the interpreters' probes */
	bool torch_files;    /* with probe_torch: read torch's files instead, where no cached
	                      * probe answers (torch_info.from_files) */
	int jobs;            /* interpreters probed at once; 0: one per CPU */
};

/* Finds toolkits and interpreters as r says (its explicit ones first, then the environment,
 * the usual places and cuwheel's cache of provisioned toolkits); probes are cached in cache_dir
 * (may be NULL: no cache). o may be NULL (defaults). Never fails for a missing tool: it is
 * recorded in looked. Returns false only for errors that make discovery meaningless
 * (unwritable cache dir). */
bool discover_run(struct arena *a, struct diag *d, const struct discover_request *r,
                  const char *cache_dir, const struct discover_opts *o, struct discovery *out);
/* Returns the toolkit with the given "MAJOR.MINOR", or NULL. */
const struct toolkit *discover_toolkit(const struct discovery *ds, const char *version);
/* Returns the interpreter for "3.12" / "3.13t", or NULL. */
const struct interp *discover_python(const struct discovery *ds, const char *version);
/* Returns the interpreter for version whose torch is "MAJOR.MINOR" torch, else the version's
 * first interpreter (discover_python), or NULL. torch NULL: discover_python(). */
const struct interp *discover_python_torch(const struct discovery *ds, const char *version,
                                           const char *torch);
/* Returns the first interpreter (newest Python) with torch "MAJOR.MINOR", or NULL. */
const struct interp *discover_torch(const struct discovery *ds, const char *torch);
/* Returns the toolkit that builds platform's kernels and links its modules here: the host's
 * toolkit of cuda with the cross compiler and the target's CUDA runtime, in a; NULL when a
 * part is missing (*missing: the part's name to install, "gcc" or "cuda-13.0"; NULL when the
 * host has no toolkit of cuda either). */
const struct toolkit *discover_cross_toolkit(struct arena *a, const struct discovery *ds,
                                             const char *cuda, const char *platform,
                                             const char **missing);
/* Returns an interpreter that stands for platform's CPython version ("3.13") in a build: its
 * headers and names, no executable (path names the headers' root); with at_least, the oldest
 * installed at or above version (an abi3 baseline). NULL when none is installed. */
const struct interp *discover_cross_python(struct arena *a, const struct discovery *ds,
                                           const char *version, bool at_least,
                                           const char *platform);
/* Returns the interpreter a platform's torch cell builds with: discover_cross_python's for the
 * Python an installed torch part of torch ("2.11") is for (version itself, or with at_least the
 * oldest at or above it), its torch the part's headers and libraries. NULL when no such torch
 * part, or no Python part of its Python, is installed. */
const struct interp *discover_cross_torch(struct arena *a, const struct discovery *ds,
                                          const char *version, bool at_least, const char *platform,
                                          const char *torch);
/* Returns true when toolkit tk can generate code (SASS) for sm (e.g. 90). */
bool toolkit_has_sm(const struct toolkit *tk, int sm);
/* Returns the default cuwheel cache directory as env (base/env.h) says: $CUWHEEL_CACHE_DIR,
 * $XDG_CACHE_HOME/cuwheel, $HOME/.cache/cuwheel (empty counts as unset), else
 * /tmp/cuwheel-cache. */
const char *cuwheel_cache_dir(struct arena *a, const char *const *env);

#endif
