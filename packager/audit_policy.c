/* audit_policy.c: the manylinux tag the wheel's ELF files honour, decided as `auditwheel show`
 * decides it (symbol versions, whitelisted libraries, blacklisted symbols, x86-64 ISA level),
 * with the libraries the wheel declares a provider for left out like `repair --exclude`. */
#include <stdlib.h>
#include <string.h>

#include "packager/audit_int.h"
#include "packager/manylinux.h"

static bool excluded(const struct audit_ctx *c, const char *soname)
{
	for (size_t i = 0; i < c->r->n_libs; i++)
		if (strcmp(c->r->libs[i].soname, soname) == 0)
			return c->r->libs[i].excluded;
	return false;
}

/* The arch's policies, most compatible first (linux left out). */
static size_t arch_policies(const char *arch, const struct ml_policy **out, size_t max)
{
	size_t np, n = 0;
	const struct ml_policy *p = manylinux_policies(&np);
	for (size_t i = 0; i < np && n < max; i++)
		if (p[i].priority > 0 && manylinux_arch(&p[i], arch))
			out[n++] = &p[i];
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (out[j]->priority > out[i]->priority) {
				const struct ml_policy *t = out[i];
				out[i] = out[j];
				out[j] = t;
			}
	return n;
}

/* Why policy p does not fit (NULL when it does). */
static const char *misfit(struct audit_ctx *c, const struct ml_policy *p, const char *arch)
{
	for (size_t i = 0; i < c->n_members; i++) {
		const struct audit_member *m = &c->members[i];
		if (!m->is_elf)
			continue;
		const struct elf_info *e = &m->elf;
		for (size_t j = 0; j < e->n_verneeds; j++) {
			const struct elf_verneed *v = &e->verneeds[j];
			if (!audit_is_loader(v->lib) && !manylinux_admits(p, arch, v->version))
				return arena_printf(c->a,
				                    "%s needs %s (from %s), newer than %s allows",
				                    m->zm->name, v->version, v->lib, p->name);
		}
		if (e->x86_isa_level >= 2)
			return arena_printf(c->a, "%s needs x86-64-v%d instructions", m->zm->name,
			                    e->x86_isa_level);
		for (size_t j = 0; j < e->needed.n; j++) {
			const char *so = e->needed.v[j];
			if (audit_is_loader(so) || excluded(c, so) ||
			    audit_bundled(c, m->zm->name, e, so))
				continue;
			if (!manylinux_whitelisted(p, so))
				return arena_printf(c->a, "%s needs %s, which %s does not allow",
				                    m->zm->name, so, p->name);
			for (size_t k = 0; k < e->n_undefs; k++)
				if (!e->undefs[k].weak &&
				    manylinux_blacklisted(p, so, e->undefs[k].name))
					return arena_printf(
					    c->a, "%s uses %s, which %s forbids from %s",
					    m->zm->name, e->undefs[k].name, p->name, so);
		}
	}
	return NULL;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* r->versioned: "lib: v1 v2" per library, as auditwheel lists them. */
static void list_versions(struct audit_ctx *c)
{
	struct strv pairs = {0};
	for (size_t i = 0; i < c->n_members; i++) {
		const struct elf_info *e = &c->members[i].elf;
		if (!c->members[i].is_elf)
			continue;
		for (size_t j = 0; j < e->n_verneeds; j++) {
			if (audit_is_loader(e->verneeds[j].lib))
				continue;
			char *s = arena_printf(c->a, "%s\t%s", e->verneeds[j].lib,
			                       e->verneeds[j].version);
			if (!strv_contains(&pairs, s))
				strv_push(c->a, &pairs, s);
		}
	}
	if (pairs.n)
		qsort(pairs.v, pairs.n, sizeof *pairs.v, cmp_str);
	struct strbuf sb = {0};
	size_t liblen = 0;
	for (size_t i = 0; i < pairs.n; i++) {
		const char *tab = strchr(pairs.v[i], '\t');
		size_t n = (size_t)(tab - pairs.v[i]);
		if (sb.len && (n != liblen || strncmp(sb.buf, pairs.v[i], n) != 0)) {
			strv_push(c->a, &c->r->versioned, sb_to_arena(&sb, c->a));
			sb = (struct strbuf){0};
		}
		if (!sb.len) {
			sb_add(&sb, pairs.v[i], n);
			sb_puts(&sb, ":");
			liblen = n;
		}
		sb_printf(&sb, " %s", tab + 1);
	}
	if (sb.len)
		strv_push(c->a, &c->r->versioned, sb_to_arena(&sb, c->a));
}

/* Parses "manylinux_2_28", "manylinux_2_28_x86_64", "manylinux2014": the policy, or NULL. */
static const struct ml_policy *parse_min(struct arena *a, const char *tag)
{
	const struct ml_policy *p = manylinux_find(tag);
	if (p)
		return p;
	/* Strip an arch suffix: try each '_' from the right. */
	for (size_t n = strlen(tag); n > 0; n--)
		if (tag[n - 1] == '_' && (p = manylinux_find(arena_strndup(a, tag, n - 1))))
			return p;
	return NULL;
}

void audit_policy(struct audit_ctx *c)
{
	struct audit_result *r = c->r;
	const char *arch = NULL;
	for (size_t i = 0; i < c->n_members; i++) {
		const struct audit_member *m = &c->members[i];
		if (!m->is_elf)
			continue;
		if (!m->elf.arch) {
			audit_add(
			    c, AUDIT_ERROR, "elf-arch", m->zm->name, NULL,
			    "ELF machine %d (class %d) is not an architecture manylinux knows",
			    m->elf.machine, m->elf.elf_class);
			continue;
		}
		if (!arch)
			arch = m->elf.arch;
		else if (strcmp(arch, m->elf.arch) != 0)
			audit_add(c, AUDIT_ERROR, "elf-arch", m->zm->name, NULL,
			          "built for %s while other files are %s", m->elf.arch, arch);
		if (c->purelib && !strstr(m->zm->name, ".data/"))
			audit_add(
			    c, AUDIT_ERROR, "purelib-elf", m->zm->name,
			    "write Root-Is-Purelib: false",
			    "compiled code in a wheel whose WHEEL says Root-Is-Purelib: true");
	}
	if (!arch) {
		r->pure = r->opened && r->n_elfs == 0;
		return;
	}
	r->arch = arch;
	list_versions(c);
	if (c->name_ok) {
		for (size_t i = 0; i < c->wn.n_tags; i++) {
			const char *plat = c->wn.tags[i].platform;
			size_t pl = strlen(plat), al = strlen(arch);
			if (strcmp(plat, "any") == 0 || pl < al ||
			    strcmp(plat + pl - al, arch) != 0 ||
			    (pl > al && plat[pl - al - 1] != '_'))
				audit_add(c, AUDIT_ERROR, "platform-arch", NULL, NULL,
				          "platform tag %s does not match the %s code inside", plat,
				          arch);
		}
	}
	const struct ml_policy *order[64];
	size_t n = arch_policies(arch, order, 64);
	const struct ml_policy *best = NULL;
	const char *why = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *bad = misfit(c, order[i], arch);
		if (!bad) {
			best = order[i];
			break;
		}
		why = bad;
	}
	/* auditwheel's overall policy is the minimum of independent verdicts; every verdict is
	 * monotone over the validated policy file, so the first policy that fits all is it. */
	if (best) {
		r->policy = best->name;
		struct strbuf sb = {0};
		sb_printf(&sb, "%s_%s", best->name, arch);
		for (size_t i = 0; i < best->n_aliases; i++)
			sb_printf(&sb, ".%s_%s", best->aliases[i], arch);
		r->platform_tag = sb_to_arena(&sb, c->a);
	} else {
		r->policy = "linux";
		r->platform_tag = arena_printf(c->a, "linux_%s", arch);
		audit_add(c, AUDIT_ERROR, "manylinux", NULL, NULL,
		          "no manylinux policy fits, PyPI will refuse linux_%s: %s", arch,
		          why ? why : "?");
	}
	r->why_not_higher = why;
	if (c->opts->min_manylinux) {
		const struct ml_policy *want = parse_min(c->a, c->opts->min_manylinux);
		if (!want || want->priority == 0) {
			audit_add(c, AUDIT_ERROR, "min-manylinux", NULL, NULL,
			          "'%s' is not a manylinux tag", c->opts->min_manylinux);
		} else if (best && best->priority < want->priority) {
			audit_add(c, AUDIT_ERROR, "min-manylinux", NULL,
			          "build in an older manylinux image (e.g. quay.io/pypa/"
			          "manylinux_2_28) or lower the demanded minimum",
			          "the binaries need %s but %s was demanded: %s", best->name,
			          want->name, misfit(c, want, arch));
		}
	}
}
