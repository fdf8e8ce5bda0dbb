/* provision_python.h: CPython interpreters provisioned into cuwheel's cache from Debian's
 * binary packages (sid's python3.X), in a private root that also holds sid's C library and
 * the libraries the interpreter loads, every .deb pinned by sha256 in
 * toolchain/pythons.lock.json. */
#ifndef CUWHEEL_TOOLCHAIN_PROVISION_PYTHON_H
#define CUWHEEL_TOOLCHAIN_PROVISION_PYTHON_H

#include "toolchain/provision.h"

/* The file in a Python's root that says it is complete; discovery ignores roots without it. */
#define PYTHON_MARKER "cuwheel-python.json"

struct python_lock {
	const char *path;           /* where it was read from */
	const char *generated;      /* "2026-11-26" */
	const char *freethreaded;   /* why the lock pins no free-threaded build, or NULL */
	struct provision_set *sets; /* one per CPython release, oldest first; source Debian */
	size_t n_sets;
};

/* Returns the Python lock file to use: $CUWHEEL_PYTHON_LOCK, else the one in the source tree
 * this binary was built from, else <prefix>/share/cuwheel/pythons.lock.json; NULL when none. */
const char *python_lock_path(struct arena *a, const char *const *env);
/* Parses a lock file's text (path names it in messages). False + diagnostic naming path. */
bool python_lock_parse(struct arena *a, struct diag *d, const char *path, const char *text,
                       struct python_lock *out);
/* Reads and parses a lock file. */
bool python_lock_load(struct arena *a, struct diag *d, const char *path, struct python_lock *out);
/* Returns the set for "3.14" (the newest pinned 3.14.x) or "3.14.10" (exactly), or NULL + a
 * diagnostic saying why not ("3.14t": no free-threaded build; "3.9": not pinned). */
const struct provision_set *python_resolve(struct arena *a, struct diag *d,
                                           const struct python_lock *l, const char *version);
/* The interpreter of an installed root: <root>/usr/bin/python<minor>. */
const char *python_exe(struct arena *a, const char *root, const char *minor);
/* Downloads the set's .debs (provision_debian_fetch: sha256-checked, /etc/apt untouched),
 * unpacks them into a staging tree, points the interpreter at the root's own C library
 * (patchelf --set-interpreter, --force-rpath --set-rpath), makes the root's pyconfig.h, venv's
 * ensurepip and the base interpreter's pip use the root's own files, renames the tree into
 * <cache>/pythons/<version>, checks that the interpreter runs as that version with ssl, venv
 * and pip, and writes the marker. Serialised by <cache>/pythons/.lock; a failed or killed
 * install leaves no root with a marker. *root gets the root. */
enum provision_result python_install(struct arena *a, struct diag *d,
                                     const struct provision_opts *o, const struct provision_set *s,
                                     const char **root);
/* Lists the provisioned Pythons in <cache_dir>/pythons, newest first. */
bool python_list(struct arena *a, struct diag *d, const char *cache_dir,
                 struct provision_installed **out, size_t *n);
/* Removes the Python "3.14.10", or the only one of "3.14". */
bool python_remove(struct arena *a, struct diag *d, const char *cache_dir, const char *version,
                   const char **removed);

#endif
