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

/* What a set of Debian packages is for, in the messages about fetching it. */
struct provision_deb_for {
	const char *what;      /* "CUDA 11.8.89", "Python 3.14.10" */
	const char *lock;      /* "the toolkit lock" */
	const char *regen;     /* the script that regenerates it: "tools/update-toolkit-lock" */
	const char *elsewhere; /* the hint when apt-get or dpkg-deb is missing */
};

/* Downloads every .deb of s with apt-get under the private configuration of s's suite in
 * <cache>/debian (never /etc/apt, no root needed), smallest first, each checked against its
 * pinned sha256 (a mismatch is removed; a version the archive no longer has says to
 * regenerate the lock). (*files)[i] gets the .deb of s->pkgs[i], in <cache>/debian/debs, kept
 * there so an interrupted install need not fetch it again. False + diagnostic. */
bool provision_debian_fetch(struct arena *a, struct diag *d, const struct provision_opts *o,
                            const struct provision_set *s, const struct provision_deb_for *f,
                            const char ***files);
/* Extracts members[i] of the .deb deb (package p; a file or a whole directory) to
 * <staging>/<to[i]> (`dpkg-deb --fsys-tarfile | tar -x`). False + diagnostic. */
bool provision_debian_extract(struct arena *a, struct diag *d, const struct provision_pkg *p,
                              const char *deb, const char *staging, const char *const *members,
                              const char *const *to, size_t n);
/* Downloads the PyPI set s's wheels into dest with pip (req: the requirements file it writes),
 * every hash required, the platform tags the pinned files' own. False + diagnostic. */
bool provision_pip_download(struct arena *a, struct diag *d, const struct provision_opts *o,
                            const struct provision_set *s, const char *python, const char *req,
                            const char *dest);
/* Checks a Debian origin read from a lock (an http(s) uri, an absolute keyring, a suite and
 * components that may go into a deb822 .sources line) and sets s's source to it; false when
 * one is malformed. */
bool provision_debian_origin(struct arena *a, const char *uri, const char *keyring,
                             const char *suite, const char *components, struct provision_set *s);

/* What toolkits and Pythons share in the cache: one directory of installs (<cache>/toolkits,
 * <cache>/pythons), each complete only with its marker file. */

/* Takes <dir>/.lock exclusively (waiting, with a note naming `cuwheel cmd`, when another
 * command holds it).
 * Returns the fd to close, or -1 + diagnostic. */
int provision_lock_dir(struct arena *a, struct diag *d, const char *dir, const char *cmd);
/* Removes the .tmp-* and .trash-* trees a killed command left (the caller holds the lock). */
void provision_remove_stale(struct arena *a, struct diag *d, const char *dir);
/* <cache_dir>/<name> created and resolved (realpath); NULL + diagnostic. */
char *provision_cache_subdir(struct arena *a, struct diag *d, const char *cache_dir,
                             const char *name);
/* Renames root (an install without its marker) to <dir>/.trash-<version>-<pid> and deletes
 * it; false + diagnostic. */
bool provision_set_aside(struct arena *a, struct diag *d, const char *dir, const char *version,
                         const char *root);
/* fsyncs staging, renames it to root and fsyncs dir; on failure removes staging and reports
 * failure (with errno) at root. */
bool provision_move_into_place(struct diag *d, const char *dir, const char *staging,
                               const char *root, const char *failure);
/* Writes <root>/<marker>: the set's version, minor, the install time, source and packages. */
bool provision_write_marker(struct arena *a, struct diag *d, const char *root, const char *marker,
                            const struct provision_set *s, const char *source);
/* Lists the installs in dir that have marker, newest version first. False + diagnostic only
 * when dir exists and cannot be read. */
bool provision_list_in(struct arena *a, struct diag *d, const char *dir, const char *marker,
                       struct provision_installed **out, size_t *n);
/* Removes the install "X.Y.Z", or the only one of minor "X.Y", of dir (what: "CUDA",
 * "Python" in messages). False + diagnostic (not installed, ambiguous, I/O). */
bool provision_remove_in(struct arena *a, struct diag *d, const char *dir, const char *marker,
                         const char *what, const char *version, const char **removed);

/* Returns $<var>, else <name> beside provision.c in the source tree this binary was built from,
 * else <prefix>/share/cuwheel/<name>; NULL when none exists. */
const char *provision_lock_file(struct arena *a, const char *const *env, const char *var,
                                const char *name);

/* Helpers for reading a lock file's sections. */

/* Returns the string member key of o, or NULL when absent or not a string. */
const char *provision_jstr(json_t *o, const char *key);
/* Returns true when s is non-empty and holds only alphanumerics and the characters of allowed
 * (the lock's strings end up in requirement files, apt arguments and URLs). */
bool provision_is_token(const char *s, const char *allowed);
/* Reads one package of a lock entry (or of an install marker) from o into p: name, version,
 * file name, sha256 and size; false when a field is missing or holds characters such names
 * do not have (Debian's when deb: they reach apt-get and URLs). */
bool provision_pkg_from_json(struct arena *a, json_t *o, struct provision_pkg *p, bool deb);
/* Fills s's packages from the lock's array pkgs (Debian packages when deb); false + an error
 * at path naming section[i].packages[j] when one is malformed. */
bool provision_set_pkgs(struct arena *a, struct diag *d, const char *path, const char *section,
                        size_t i, json_t *pkgs, bool deb, struct provision_set *s);
/* Fills s's version, major, minor_n and minor from "MAJOR.MINOR.PATCH"; false when ver is not
 * of that form. */
bool provision_set_version(struct arena *a, struct provision_set *s, const char *ver);

#endif
