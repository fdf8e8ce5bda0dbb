/* provision_internal.h: the interface every provisioning source (PyPI, Debian) implements, and
 * what the sources share with the driver in provision.c. Not for use outside
 * toolchain/provision*.c. */
#ifndef CUWHEEL_TOOLCHAIN_PROVISION_INTERNAL_H
#define CUWHEEL_TOOLCHAIN_PROVISION_INTERNAL_H

#include <jansson.h>

#include "toolchain/provision.h"

/* A file a toolkit root must have, and the package that brings it. */
struct provision_piece {
	const char *path; /* relative to the root: "bin/nvcc" */
	const char *package;
	bool exec;
};

/* One source of toolkits. provision.c keeps the table of them and does, the same for each,
 * what is not a source's own: resolving a version against the lock, the install lock, the
 * staging tree, the marker, the rename into place, listing and removal. */
struct provision_source_ops {
	enum provision_source id;
	/* Appends the sets this source pins in the lock file (root, read from path) to out->sets,
	 * each with its source set; an optional section may be absent. False + diagnostic naming
	 * path. */
	bool (*lock_read)(struct arena *a, struct diag *d, const char *path, json_t *root,
	                  struct provision_lock *out);
	/* Returns the source's name as `toolkit list` shows it ("PyPI", "Debian bookworm"). */
	const char *(*name)(struct arena *a, const struct provision_set *s);
	/* Returns what the toolkit's marker records as its source ("pypi", the wheels directory,
	 * "debian bookworm"). */
	const char *(*marker)(struct arena *a, const struct provision_opts *o,
	                      const struct provision_set *s);
	/* Fills an empty staging directory with a complete toolkit root for s (everything but the
	 * marker), checked with provision_check_root. False + diagnostic; the caller removes the
	 * staging tree. */
	bool (*assemble)(struct arena *a, struct diag *d, const struct provision_opts *o,
	                 const struct provision_set *s, const char *staging);
};

extern const struct provision_source_ops provision_pypi;
extern const struct provision_source_ops provision_debian;

/* Checks that every piece is in root (executables executable), naming the package that should
 * have brought a missing one, then that bin/nvcc runs and reports s's version. False +
 * diagnostic. */
bool provision_check_root(struct arena *a, struct diag *d, const char *root,
                          const struct provision_set *s, const struct provision_piece *pieces,
                          size_t n);

/* Helpers for reading a lock file's sections. */

/* Returns the string member key of o, or NULL when absent or not a string. */
const char *provision_jstr(json_t *o, const char *key);
/* Returns true when s is non-empty and holds only alphanumerics and the characters of allowed
 * (the lock's strings end up in requirement files, apt arguments and URLs). */
bool provision_is_token(const char *s, const char *allowed);
/* Reads one {name, version, filename, sha256, size} of a wheel (deb false) or a .deb (deb
 * true, Debian's characters) into p; false when a field is missing or malformed. */
bool provision_pkg_from_json(struct arena *a, json_t *o, struct provision_pkg *p, bool deb);
/* Fills s's packages from the lock's array pkgs (Debian packages when deb); false + an error
 * at path naming section[i].packages[j] when one is malformed. */
bool provision_set_pkgs(struct arena *a, struct diag *d, const char *path, const char *section,
                        size_t i, json_t *pkgs, bool deb, struct provision_set *s);
/* Fills s's version, major, minor_n and minor from "MAJOR.MINOR.PATCH"; false when ver is not
 * of that form. */
bool provision_set_version(struct arena *a, struct provision_set *s, const char *ver);

#endif
