/* provision_cross.h: what an x86_64 machine needs to build wheels for another Linux platform
 * (linux_aarch64), provisioned into cuwheel's cache from pinned packages
 * (toolchain/cross.lock.json): the cross compiler (Debian's gcc-12-aarch64-linux-gnu and the
 * target's C and C++ libraries), per CUDA minor the target's static CUDA runtime, per Python
 * minor the target's headers. The host's nvcc compiles the kernels: its headers are the same
 * for both targets. */
#ifndef CUWHEEL_TOOLCHAIN_PROVISION_CROSS_H
#define CUWHEEL_TOOLCHAIN_PROVISION_CROSS_H

#include "toolchain/provision.h"

/* The file in a part's root that says it is complete; discovery ignores roots without it. */
#define CROSS_MARKER "cuwheel-cross.json"

/* What a part of a cross target is. */
enum cross_kind {
	CROSS_COMPILER, /* gcc/g++ for the target, with its C library: <root>/bin/<triplet>-gcc */
	CROSS_CUDA,     /* the target's static CUDA runtime: <root>/lib64/libcudart_static.a */
	CROSS_PYTHON,   /* the target's CPython root: <root>/usr/include/python3.X, and
	                 * <root>/usr/bin/python3.X that qemu-user runs */
	CROSS_TORCH,    /* torch's wheel for the target and one Python: <root>/torch/{include,
	                 * lib,version.py} and <root>/nvidia/cu<N>/lib/libcudart.so.<N> */
};

/* One part, pinned: its set (version: the compiler's, nvcc's runtime, CPython's; minor: the
 * CUDA or Python minor it serves). Its install is <cache>/cross/<platform>/<id>. */
struct cross_target;
struct cross_part {
	struct provision_set set; /* first: cross_part_of finds the part from its set */
	const struct cross_target *target;
	enum cross_kind kind;
	const char *id; /* "gcc-12.2.0", "cuda-13.0.88", "python-3.14.10", "torch-2.11.0-cp313" */
	/* A torch part: the Python minor its wheel is for ("3.13") and the CUDA its build is
	 * ("13.0"); NULL for the others. */
	const char *python, *cuda;
};

/* A platform cuwheel can cross-build for, and its pinned parts. */
struct cross_target {
	const char *platform;     /* "linux_aarch64" */
	const char *triplet;      /* "aarch64-linux-gnu" */
	struct cross_part *parts; /* the compiler first */
	size_t n_parts;
};

struct cross_lock {
	const char *path;
	const char *generated;
	struct cross_target *targets;
	size_t n_targets;
};

/* An installed part found in the cache. */
struct cross_installed {
	const char *platform, *triplet;
	enum cross_kind kind;
	const char *id, *version, *minor;
	const char *root; /* absolute */
	/* A torch part: its Python minor, torch.version.__version__ ("2.11.0+cu130") and
	 * torch.version.cuda ("13.0"), read from the wheel at install; "" for the others. */
	const char *python, *torch_version, *cuda;
	int cxx11_abi, openmp; /* 1: yes, -1: unknown (torch/lib's libc10.so and libgomp) */
};

/* Returns the cross lock file: $CUWHEEL_CROSS_LOCK, else the source tree's, else
 * <prefix>/share/cuwheel/cross.lock.json; NULL when none exists. */
const char *cross_lock_path(struct arena *a, const char *const *env);
/* Reads and validates a cross lock file. False + diagnostic naming the file. */
bool cross_lock_load(struct arena *a, struct diag *d, const char *path, struct cross_lock *out);
/* Returns the target of platform in l, or NULL. */
const struct cross_target *cross_target_find(const struct cross_lock *l, const char *platform);
/* Returns the part of t that an install names: "gcc" (the compiler), "cuda-13.0", "python-3.14",
 * "torch-2.11" or an exact id ("cuda-13.0.88", "torch-2.11.0-cp313"); NULL + a diagnostic listing
 * what t pins. */
const struct cross_part *cross_resolve(struct arena *a, struct diag *d,
                                       const struct cross_target *t, const char *name);
/* Returns t's part of kind for minor ("13.0", "3.14"; NULL for the compiler), or NULL. */
const struct cross_part *cross_part_for(const struct cross_target *t, enum cross_kind kind,
                                        const char *minor);
/* Returns t's torch part of torch minor torch for Python python ("3.13"), or with at_least the
 * one of the oldest Python at or above it; NULL when t pins none. */
const struct cross_part *cross_torch_part(const struct cross_target *t, const char *torch,
                                          const char *python, bool at_least);
/* Returns the part whose set s is (s from a cross_part of a loaded lock). */
const struct cross_part *cross_part_of(const struct provision_set *s);
/* Downloads part p of its target (Debian's .debs through the private apt configuration, PyPI's
 * wheel with pip, every file checked against its sha256), assembles it beside its place, checks it
 * (the compiler compiles and links a C++ program for the target) and renames it into
 * <cache>/cross/<platform>/<id> with its marker. Serialised by that directory's lock. */
enum provision_result cross_install(struct arena *a, struct diag *d, const struct provision_opts *o,
                                    const struct cross_part *p, const char **root);
/* Lists the installed parts of every platform under <cache_dir>/cross. */
bool cross_list(struct arena *a, struct diag *d, const char *cache_dir,
                struct cross_installed **out, size_t *n);
/* The compiler of an installed compiler part: <root>/bin/<triplet>-gcc or -g++. */
const char *cross_cc(struct arena *a, const struct cross_installed *p, bool cxx);
/* Removes the installed part id (of any platform); false + diagnostic. */
bool cross_remove(struct arena *a, struct diag *d, const char *cache_dir, const char *id,
                  const char **removed);

#endif
