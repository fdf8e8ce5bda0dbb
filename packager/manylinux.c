/* manylinux.c: questions about auditwheel's policy table (manylinux_policy.c, generated). */
#include <string.h>

#include "packager/manylinux.h"

const struct ml_policy *manylinux_find(const char *name)
{
	size_t n;
	const struct ml_policy *p = manylinux_policies(&n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(p[i].name, name) == 0)
			return &p[i];
		for (size_t j = 0; j < p[i].n_aliases; j++)
			if (strcmp(p[i].aliases[j], name) == 0)
				return &p[i];
	}
	return NULL;
}

const struct ml_arch *manylinux_arch(const struct ml_policy *p, const char *arch)
{
	for (size_t i = 0; i < p->n_archs; i++)
		if (strcmp(p->archs[i].arch, arch) == 0)
			return &p->archs[i];
	return NULL;
}

bool manylinux_whitelisted(const struct ml_policy *p, const char *soname)
{
	for (size_t i = 0; i < p->n_whitelist; i++)
		if (strcmp(p->whitelist[i], soname) == 0)
			return true;
	return false;
}

bool manylinux_admits(const struct ml_policy *p, const char *arch, const char *version)
{
	const struct ml_arch *a = manylinux_arch(p, arch);
	if (!a)
		return false;
	/* auditwheel splits at the first '_': "GLIBC_2.34" -> "GLIBC"; "GLIBC_PRIVATE" is a GLIBC
	 * version no policy lists, so it rejects every policy, as it does in auditwheel. */
	const char *us = strchr(version, '_');
	size_t plen = us ? (size_t)(us - version) : strlen(version);
	const char *rest = us ? us + 1 : NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct ml_symvers *sv = &a->symvers[i];
		if (strlen(sv->prefix) != plen || strncmp(sv->prefix, version, plen) != 0)
			continue;
		if (!rest)
			return false;
		for (size_t j = 0; j < sv->n; j++)
			if (strcmp(sv->versions[j], rest) == 0)
				return true;
		return false;
	}
	return true;
}

const struct ml_policy *manylinux_for_versions(const char *arch, const char *const *versions,
                                               size_t n, const char **blocker)
{
	size_t np;
	const struct ml_policy *p = manylinux_policies(&np);
	const char *last_block = NULL;
	*blocker = NULL;
	/* Most compatible first, like auditwheel's versioned_symbols_policy. */
	const struct ml_policy *order[64];
	size_t no = 0;
	for (size_t i = 0; i < np && no < 64; i++)
		if (p[i].priority > 0 && manylinux_arch(&p[i], arch))
			order[no++] = &p[i];
	for (size_t i = 0; i < no; i++)
		for (size_t j = i + 1; j < no; j++)
			if (order[j]->priority > order[i]->priority) {
				const struct ml_policy *t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
	for (size_t i = 0; i < no; i++) {
		const char *bad = NULL;
		for (size_t k = 0; k < n && !bad; k++)
			if (!manylinux_admits(order[i], arch, versions[k]))
				bad = versions[k];
		if (!bad) {
			*blocker = last_block;
			return order[i];
		}
		last_block = bad;
	}
	*blocker = last_block;
	return NULL;
}

bool manylinux_blacklisted(const struct ml_policy *p, const char *lib, const char *sym)
{
	for (size_t i = 0; i < p->n_blacklist; i++) {
		if (strcmp(p->blacklist[i].lib, lib) != 0)
			continue;
		for (size_t j = 0; j < p->blacklist[i].n; j++)
			if (strcmp(p->blacklist[i].symbols[j], sym) == 0)
				return true;
	}
	return false;
}
