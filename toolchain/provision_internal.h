/* provision_internal.h: what the provisioning sources (PyPI, Debian) share with the driver in
 * provision.c. Not for use outside toolchain/provision*.c. */
#ifndef CUWHEEL_TOOLCHAIN_PROVISION_INTERNAL_H
#define CUWHEEL_TOOLCHAIN_PROVISION_INTERNAL_H

#include "toolchain/provision.h"

/* A file a toolkit root must have, and the package that brings it. */
struct provision_piece {
	const char *path; /* relative to the root: "bin/nvcc" */
	const char *package;
	bool exec;
};

/* A source: fills an empty staging directory with a complete toolkit root for s (everything
 * but the marker), checked with provision_check_root. False + diagnostic; the caller removes
 * the staging tree. */
typedef bool provision_assemble_fn(struct arena *a, struct diag *d, const struct provision_opts *o,
                                   const struct provision_set *s, const char *staging);
provision_assemble_fn provision_pypi_assemble;
provision_assemble_fn provision_debian_assemble;

/* Checks that every piece is in root (executables executable), naming the package that should
 * have brought a missing one, then that bin/nvcc runs and reports s's version. False +
 * diagnostic. */
bool provision_check_root(struct arena *a, struct diag *d, const char *root,
                          const struct provision_set *s, const struct provision_piece *pieces,
                          size_t n);

#endif
