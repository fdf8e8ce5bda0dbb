/* manylinux.h: auditwheel's manylinux policies (generated table) and the questions audit asks. */
#ifndef CUWHEEL_PACKAGER_MANYLINUX_H
#define CUWHEEL_PACKAGER_MANYLINUX_H

#include <stdbool.h>
#include <stddef.h>

/* Symbol versions one policy admits for one prefix ("GLIBC" -> "2.2.5", "2.3", ...). */
struct ml_symvers {
	const char *prefix;
	const char *const *versions;
	size_t n;
};

/* The symbol-version limits of one policy on one architecture. */
struct ml_arch {
	const char *arch; /* "x86_64", "aarch64", ... */
	const struct ml_symvers *symvers;
	size_t n;
};

/* Symbols of a whitelisted library that a policy forbids (zlib internals, old glibc). */
struct ml_blacklist {
	const char *lib;
	const char *const *symbols;
	size_t n;
};

/* One entry of auditwheel's manylinux-policy.json. */
struct ml_policy {
	const char *name;           /* "manylinux_2_17" ("linux" for the fallback) */
	const char *const *aliases; /* "manylinux2014" */
	size_t n_aliases;
	int priority;                 /* higher = more compatible (older glibc); linux = 0 */
	int glibc_major, glibc_minor; /* 0.0 for linux */
	const struct ml_arch *archs;
	size_t n_archs;
	const char *const *whitelist; /* sonames allowed as external dependencies */
	size_t n_whitelist;
	const struct ml_blacklist *blacklist;
	size_t n_blacklist;
};

/* The policy table in the JSON's order (linux first, then by falling priority); never NULL. */
const struct ml_policy *manylinux_policies(size_t *n);
/* Returns the policy named name (PEP 600 name or legacy alias, without the arch), or NULL. */
const struct ml_policy *manylinux_find(const char *name);
/* Returns the limits of policy p for arch, or NULL when p does not exist for that arch. */
const struct ml_arch *manylinux_arch(const struct ml_policy *p, const char *arch);
/* Returns true when soname is in p's lib_whitelist. */
bool manylinux_whitelisted(const struct ml_policy *p, const char *soname);
/* Returns true when p admits the version name ("GLIBC_2.34") on arch: its prefix (up to the first
 * '_') is unknown to the policy, or the version is listed under it (auditwheel's rule). */
bool manylinux_admits(const struct ml_policy *p, const char *arch, const char *version);
/* Returns the most compatible policy (highest priority, linux excluded) that exists for arch and
 * admits every version in versions[0..n); NULL when none does (only linux_<arch> remains).
 * *blocker gets a version that the next more compatible policy rejects (NULL when none). */
const struct ml_policy *manylinux_for_versions(const char *arch, const char *const *versions,
                                               size_t n, const char **blocker);
/* Returns true when the forbidden symbol `sym` of library lib is blacklisted by p. */
bool manylinux_blacklisted(const struct ml_policy *p, const char *lib, const char *sym);

#endif
