/* audit_declared.c: what a wheel installs beyond its own packages: install-scheme (.data)
 * members, commands put into the environment's bin/, and top-level names nobody declared. With
 * the project's declaration (a cuwheel build: its packages and top-level modules, and no .data at
 * all) anything else is an error; for any other wheel, .data/scripts and names that
 * top_level.txt does not list are warnings. */
#include <string.h>
#include <strings.h>

#include "base/escape.h"
#include "packager/audit_int.h"

static bool has_suffix_ci(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !strncasecmp(s + n - k, suffix, k);
}

/* The import name a member gives at the wheel's root (relative to root, which is "" or a
 * .data/purelib/ or .data/platlib/ prefix): its first directory, or for a file there the stem of
 * a module (.py, .so, .pyd); NULL for a file that is no module (a .pth, a README). */
static const char *import_name(struct arena *a, const char *rel)
{
	const char *slash = strchr(rel, '/');
	if (slash)
		return arena_strndup(a, rel, (size_t)(slash - rel));
	size_t n = strlen(rel);
	if (!has_suffix_ci(rel, n, ".py") && !has_suffix_ci(rel, n, ".so") &&
	    !has_suffix_ci(rel, n, ".pyd"))
		return NULL;
	return arena_strndup(a, rel, strcspn(rel, "."));
}

/* The names top_level.txt lists (one a line), or NULL when the wheel has none. */
static struct strv *top_level_txt(struct audit_ctx *c)
{
	if (!c->distinfo)
		return NULL;
	const struct zip_member *m =
	    zip_reader_find(&c->zr, arena_printf(c->a, "%s/top_level.txt", c->distinfo));
	char *text;
	size_t len;
	struct diag quiet = {0};
	if (!m || !zip_reader_read(c->a, &quiet, &c->zr, m, 1 << 20, &text, &len))
		return NULL;
	struct strv *v = arena_calloc(c->a, 1, sizeof *v);
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *e = le;
		while (e > p && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		if (e > p)
			strv_push(c->a, v, arena_strndup(c->a, p, (size_t)(e - p)));
		p = nl ? nl + 1 : end;
	}
	return v;
}

void audit_declared(struct audit_ctx *c)
{
	const struct strv *declared = c->opts->declared;
	struct strv *listed = declared ? NULL : top_level_txt(c);
	const char *want_data =
	    c->name_ok ? arena_printf(c->a, "%s-%s.data", c->wn.distribution, c->wn.version) : NULL;
	struct strv seen = {0}, bad_dirs = {0};
	for (size_t i = 0; i < c->zr.n_members; i++) {
		const struct zip_member *m = &c->zr.members[i];
		const char *n = m->name;
		const char *slash = strchr(n, '/');
		size_t top = slash ? (size_t)(slash - n) : strlen(n);
		const char *shown = esc_str(c->a, ESC_TERM, n);
		if (c->distinfo && slash && !strncmp(n, c->distinfo, top) && !c->distinfo[top])
			continue;
		if (slash && has_suffix_ci(n, top, ".dist-info"))
			continue;    /* dist-info-count says it */
		const char *rel = n; /* relative to where it installs into site-packages */
		if (has_suffix_ci(n, top, ".data")) {
			char *dir = arena_strndup(c->a, n, top);
			if (want_data && strcmp(dir, want_data) && !strv_contains(&bad_dirs, dir)) {
				strv_push(c->a, &bad_dirs, dir);
				audit_add(
				    c, AUDIT_ERROR, "data-dir", dir, NULL,
				    "'%s' is not this wheel's data directory (%s): installers "
				    "still "
				    "spread every top-level *.data directory over the environment",
				    esc_str(c->a, ESC_TERM, dir), want_data);
			}
			if (declared && !m->is_dir) {
				audit_add(
				    c, AUDIT_ERROR, "undeclared-data", n,
				    "cuwheel writes no .data directory: ship files inside a "
				    "package",
				    "'%s' installs outside the package, and the project declares "
				    "no .data",
				    shown);
				continue;
			}
			const char *sub = slash ? slash + 1 : "";
			bool script = !strncmp(sub, "scripts/", 8) ||
			              !strncmp(sub, "data/bin/", 9) ||
			              !strncmp(sub, "data/Scripts/", 13);
			if (script && !m->is_dir) {
				audit_add(
				    c, AUDIT_WARNING, "data-scripts", n,
				    "declare commands as [project.scripts] entry points",
				    "'%s' is installed into the environment's scripts directory "
				    "(bin/), where it can replace pip, python or another "
				    "distribution's command",
				    shown);
				continue;
			}
			if (!strncmp(sub, "purelib/", 8) || !strncmp(sub, "platlib/", 8))
				rel = sub + 8;
			else
				continue; /* headers, data: not importable names */
		}
		if (!*rel || (m->is_dir && !strchr(rel, '/')))
			continue;
		const char *name = import_name(c->a, rel);
		const char *key = name ? name : rel;
		if (strv_contains(&seen, key))
			continue;
		strv_push(c->a, &seen, key);
		if (declared) {
			if (name && strv_contains(declared, name))
				continue;
			audit_add(
			    c, AUDIT_ERROR, "undeclared-top-level", n,
			    "ship only the packages and extension modules the config names",
			    "'%s' puts %s '%s' at the top of site-packages, which the project "
			    "does not declare (packages, extension modules)",
			    shown, name ? "the module or package" : "the file",
			    esc_str(c->a, ESC_TERM, key));
		} else if (listed) {
			if (name && strv_contains(listed, name))
				continue;
			audit_add(
			    c, AUDIT_WARNING, "top-level-unlisted", n, NULL,
			    "'%s' puts %s '%s' at the top of site-packages, which top_level.txt "
			    "does not list",
			    shown, name ? "the module or package" : "the file",
			    esc_str(c->a, ESC_TERM, key));
		}
	}
}
