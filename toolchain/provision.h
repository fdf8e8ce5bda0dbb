/* provision.h: CUDA toolkits provisioned into cuwheel's cache from pinned packages: NVIDIA's
 * wheels on PyPI (13.x) or NVIDIA's compilers as Debian's archive packages them (11.8, 12.4). */
#ifndef CUWHEEL_TOOLCHAIN_PROVISION_H
#define CUWHEEL_TOOLCHAIN_PROVISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

/* The file in a toolkit's root that says it is complete; discovery ignores roots without it. */
#define PROVISION_MARKER "cuwheel-toolkit.json"

/* Where a toolkit's packages come from. */
enum provision_source {
	PROVISION_PYPI,   /* NVIDIA's wheels, downloaded by pip */
	PROVISION_DEBIAN, /* Debian's .debs, downloaded by apt-get with a private configuration */
};

/* One pinned package: a wheel, or a .deb. */
struct provision_pkg {
	const char *name;     /* "nvidia-cuda-nvcc", "nvidia-cuda-toolkit" */
	const char *version;  /* "13.1.80", "11.8.89~11.8.0-5~deb12u1" */
	const char *filename; /* the manylinux x86_64 wheel, or the .deb's pool path */
	const char *sha256;   /* 64 lowercase hex digits */
	int64_t size;         /* bytes of the wheel; -1 unknown */
};

/* The packages of one toolkit release; its version is nvcc's ("13.1.80"). */
struct provision_set {
	const char *version;
	const char *minor; /* "13.1" */
	int major, minor_n;
	struct provision_pkg *pkgs;
	size_t n_pkgs;
	enum provision_source source;
	const char *uri;        /* Debian: the archive ("http://deb.debian.org/debian") */
	const char *suite;      /* Debian: "bookworm" */
	const char *components; /* Debian: "main contrib non-free" */
	const char *keyring;    /* Debian: the archive's keyring (apt checks the indexes with it) */
	const char *arch;       /* Debian: the packages' architecture ("arm64"); NULL: amd64 */
};

/* A CUDA minor version whose PyPI packages cannot make a toolkit, and what they lack. */
struct provision_gap {
	const char *minor;   /* "12.4" */
	const char *package; /* "nvidia-cuda-nvcc-cu12" */
	const char *version; /* "12.4.131" */
	struct strv has;     /* "ptxas", "libnvvm" */
	struct strv lacks;   /* "nvcc", "cicc", ... */
};

struct provision_lock {
	const char *path;           /* where it was read from */
	const char *generated;      /* "2026-11-22" */
	struct provision_set *sets; /* ordered by version, oldest first */
	size_t n_sets;
	struct provision_gap *gaps;
	size_t n_gaps;
};

/* A provisioned toolkit found in the cache (a root with the marker). */
struct provision_installed {
	const char *version; /* from the marker */
	const char *root;    /* absolute, links resolved (where its files are) */
	/* the cache's own entry for it, never resolved (what remove removes) */
	const char *entry;
	const char *installed; /* UTC time of the install, ISO 8601 */
	const char *source;    /* "pypi", "debian bookworm", or the wheels directory */
	uint64_t size;         /* bytes of its files (symlinks not followed) */
	struct provision_pkg *pkgs;
	size_t n_pkgs;
};

struct provision_opts {
	const char *cache_dir;  /* cuwheel's cache; toolkits go to <cache_dir>/toolkits/<version> */
	const char *python;     /* the interpreter whose pip downloads; NULL: provision_python() */
	const char *wheels_dir; /* NULL: the index; else only this directory (pip --no-index) */
	const char *const *env; /* the environment (for PATH, HOME and the CUWHEEL_* variables) */
};

enum provision_result {
	PROVISION_FAILED,
	PROVISION_INSTALLED,
	PROVISION_ALREADY, /* the version was installed already: nothing was done */
};

/* Returns the lock file to use: $CUWHEEL_TOOLKIT_LOCK, else the one in the source tree this
 * binary was built from, else <prefix>/share/cuwheel/toolkits.lock.json; NULL when none exists. */
const char *provision_lock_path(struct arena *a, const char *const *env);
/* Reads and validates a lock file (schema 1: PyPI only; 2: also "debian"). False + diagnostic
 * naming the file. */
bool provision_lock_load(struct arena *a, struct diag *d, const char *path,
                         struct provision_lock *out);
/* Returns the set for "13.1" (newest release of that minor) or "13.1.80" (exactly), from either
 * source, or NULL + a diagnostic that says exactly why not (which sources were asked, what
 * PyPI's packages lack). */
const struct provision_set *provision_resolve(struct arena *a, struct diag *d,
                                              const struct provision_lock *l, const char *version);
/* Returns the name of a source as `toolkit list` shows it ("PyPI", "Debian bookworm"). */
const char *provision_source_name(struct arena *a, const struct provision_set *s);
/* Returns the python to run pip with: $CUWHEEL_PYTHON, python3 on PATH, the newest pyenv one;
 * NULL when none is found. */
const char *provision_python(struct arena *a, const char *const *env);
/* Downloads the set's packages (wheels with pip, hashes required; .debs with apt-get and a
 * private configuration under <cache>/debian, each checked against its pinned sha256),
 * extracts what a toolkit needs into its layout (bin, nvvm, include, lib64), checks that nvcc
 * reports the pinned version, writes the marker (source, packages) and renames the tree into
 * <cache>/toolkits/<version>. Serialised by a lock on
 * <cache>/toolkits/.lock; stale .tmp-* trees are removed. *root gets the toolkit's root.
 * PROVISION_FAILED + diagnostic on error (nothing visible is left behind). */
enum provision_result provision_install(struct arena *a, struct diag *d,
                                        const struct provision_opts *o,
                                        const struct provision_set *s, const char **root);
/* Lists the provisioned toolkits in <cache_dir>/toolkits, newest version first. False +
 * diagnostic only when the directory exists and cannot be read. */
bool provision_list(struct arena *a, struct diag *d, const char *cache_dir,
                    struct provision_installed **out, size_t *n);
/* Removes the toolkit "13.1.80", or the only one of minor "13.1": its cache entry renamed to a
 * .trash-* tree, then deleted; an entry that is a symbolic link is unlinked, its target left as
 * it was (nothing outside the cache is touched). *removed gets the entry removed. False +
 * diagnostic (not installed, ambiguous, I/O). */
bool provision_remove(struct arena *a, struct diag *d, const char *cache_dir, const char *version,
                      const char **removed);

#endif
