/* config_packages.c: [tool.cuwheel].packages: each entry a normalised, project-relative package
 * directory (never a wheel's .data or .dist-info, never the build or dist dir), or "find", the
 * top-level packages found the way setuptools' find_packages() finds them. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/os-file.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "matrix/config_internal.h"
#include "packager/stage.h"

bool config_find_packages(struct cfg_reader *r, struct config *cfg, const struct toml_value *at)
{
	if (strcmp(at->u.str.s, "find") != 0) {
		cfg_error(r, at,
		          "[tool.cuwheel].packages must be an array of directories or \"find\", "
		          "not '%s'",
		          at->u.str.s);
		return false;
	}
	cfg->packages_found = true;
	struct strv names = {0};
	if (!os_list_dir(r->a, cfg->project_dir, &names)) {
		cfg_error(r, at, "cannot list %s", cfg->project_dir);
		return false;
	}
	/* find_packages() takes every directory with an __init__.py whose name is an identifier
	 * (setuptools skips others, and never looks into a directory without __init__.py). */
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		bool ident =
		    (n[0] == '_' || (n[0] >= 'A' && n[0] <= 'Z') || (n[0] >= 'a' && n[0] <= 'z'));
		for (const char *p = n; ident && *p; p++)
			ident = *p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
			        (*p >= 'a' && *p <= 'z');
		char *dir = os_join(r->a, cfg->project_dir, n);
		if (ident && os_is_dir(dir) && os_exists(os_join(r->a, dir, "__init__.py")))
			strv_push(r->a, &cfg->packages, n);
	}
	if (cfg->packages.n == 0) {
		cfg_error(r, at, "packages = \"find\" found no directory with an __init__.py in %s",
		          cfg->project_dir);
		return false;
	}
	return true;
}

const char *config_package_base(const char *entry)
{
	size_t n = strlen(entry);
	while (n > 1 && entry[n - 1] == '/')
		n--;
	const char *b = entry + n;
	while (b > entry && b[-1] != '/')
		b--;
	return b;
}

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !strncasecmp(s + n - k, suffix, k);
}

static bool is_identifier(const char *s, size_t n)
{
	if (!n || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_') || (unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/* The entry with '.' components and empty components dropped and '..' applied, or NULL when
 * a '..' climbs above the project. */
static char *normalised(struct arena *a, const char *e)
{
	struct strv parts = {0};
	const char *p = e, *c;
	size_t n;
	while ((c = path_next(&p, &n))) {
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (!parts.n)
				return NULL;
			parts.n--;
			continue;
		}
		strv_push(a, &parts, arena_strndup(a, c, n));
	}
	struct strbuf sb = {0};
	for (size_t i = 0; i < parts.n; i++)
		sb_printf(&sb, "%s%s", i ? "/" : "", parts.v[i]);
	return sb_to_arena(&sb, a);
}

/* Why entry e (as written) is not a normalised, project-relative package directory: NULL when
 * it is; else the message, and *hint an obvious fix or NULL. */
static const char *entry_problem(struct arena *a, const char *e, const char **hint)
{
	const char *shown = config_shown(a, e);
	*hint = NULL;
	if (!e[0])
		return "a packages entry is empty: name a package directory such as \"pkg\"";
	if (e[0] == '/' || e[0] == '\\' || (isalpha((unsigned char)e[0]) && e[1] == ':')) {
		*hint = "write the package directory relative to the project directory";
		return arena_printf(a, "packages entry '%s' is an absolute path", shown);
	}
	if (strchr(e, '\\')) {
		*hint = "separate directories with '/'";
		return arena_printf(a, "packages entry '%s' holds a '\\'", shown);
	}
	char *norm = normalised(a, e);
	size_t len = strlen(e);
	if (e[len - 1] == '/') {
		if (norm && norm[0])
			*hint = arena_printf(a, "write \"%s\" (the directory itself)",
			                     config_shown(a, norm));
		else
			*hint = "name the package directory itself, such as \"pkg\"";
		return arena_printf(a,
		                    "packages entry '%s' ends with '/': an entry names one package "
		                    "directory, which is shipped under its own name",
		                    shown);
	}
	if (!norm) {
		*hint = "packages must live inside the project directory";
		return arena_printf(a, "'%s' reaches outside the project directory", shown);
	}
	if (strcmp(norm, e)) {
		*hint = norm[0] ? arena_printf(a, "write \"%s\"", config_shown(a, norm))
		                : "name the package directory itself, such as \"pkg\"";
		return arena_printf(a,
		                    "packages entry '%s' is not a normalised path (it holds '.', "
		                    "'..' or '//')",
		                    shown);
	}
	const char *p = e, *c;
	size_t n;
	while ((c = path_next(&p, &n))) {
		if (ends_with_ci(c, n, ".data") || ends_with_ci(c, n, ".dist-info")) {
			*hint = "ship the files inside a package directory; cuwheel writes the "
			        "wheel's .dist-info itself and no .data directory";
			return arena_printf(
			    a,
			    "packages entry '%s' holds '%.*s', named like a wheel's %s directory: "
			    "installers would treat it as one (%s)",
			    shown, (int)n, c, ends_with_ci(c, n, ".data") ? ".data" : ".dist-info",
			    ends_with_ci(c, n, ".data")
			        ? "a .data/scripts file replaces a command in the environment's "
			          "bin/"
			        : "its METADATA and RECORD would describe what is installed");
		}
	}
	const char *base = config_package_base(e);
	size_t bn = strlen(base);
	bool stubs = bn > 6 && !strcmp(base + bn - 6, "-stubs");
	if (!ninja_arg_refusal(e, ARG_PATH) && !is_identifier(base, stubs ? bn - 6 : bn)) {
		*hint = "a package directory's name is its import name: letters, digits and '_' "
		        "(or NAME-stubs for a stub-only package)";
		return arena_printf(a,
		                    "packages entry '%s' ships a directory '%s', which is not an "
		                    "importable package name",
		                    shown, config_shown(a, base));
	}
	return NULL;
}

bool config_read_packages(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool)
{
	const char *where = "[tool.cuwheel]";
	size_t first = cfg->packages.n;
	if (!cfg_strv(r, tool, "packages", where, false, &cfg->packages))
		return false;
	const struct toml_value *pk = toml_get(tool, "packages");
	bool ok = true;
	const char *root = os_realpath(r->a, cfg->project_dir);
	for (size_t i = first; pk && i < cfg->packages.n; i++) {
		const struct toml_value *at = pk->u.array.items[i - first];
		const char *e = cfg->packages.v[i], *hint;
		const char *why = entry_problem(r->a, e, &hint);
		if (!why) {
			const char *base = config_package_base(e);
			for (size_t j = first; j < i && !why; j++)
				if (!strcmp(config_package_base(cfg->packages.v[j]), base))
					why = arena_printf(
					    r->a,
					    "packages entries '%s' and '%s' both ship a "
					    "directory '%s' at the wheel's root",
					    config_shown(r->a, cfg->packages.v[j]),
					    config_shown(r->a, e), config_shown(r->a, base));
		}
		if (!why && !os_is_dir(os_join(r->a, cfg->project_dir, e)))
			why = arena_printf(r->a, "'%s' is not a directory in %s",
			                   config_shown(r->a, e), cfg->project_dir);
		if (!why)
			why = config_confine(r->a, root ? root : cfg->project_dir, cfg->project_dir,
			                     e);
		if (!why)
			why = config_package_problem(r->a, cfg->project_dir, e);
		if (!why) /* plan refuses what staging would */
			why = stage_package_problem(r->a, cfg->project_dir, e, cfg->ship_hidden);
		if (why) {
			cfg_error(r, at, "%s", why);
			if (hint)
				diag_msg(r->d, DIAG_HINT, "%s", hint);
			ok = false;
		}
	}
	return ok;
}

/* path resolved through its symlinks when it exists, else normalised as text. */
static char *resolved(struct arena *a, const char *path)
{
	char *real = os_realpath(a, path);
	if (real)
		return real;
	char *n = normalised(a, path + 1);
	return n ? arena_printf(a, "/%s", n) : arena_strdup(a, path);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

bool config_check_package_dirs(struct cfg_reader *r, struct config *cfg)
{
	const struct toml_value *t = toml_get(cfg->root, "tool");
	const struct toml_value *tool = t && t->type == TOML_TABLE ? toml_get(t, "cuwheel") : NULL;
	const struct toml_value *pk =
	    tool && tool->type == TOML_TABLE ? toml_get(tool, "packages") : NULL;
	const char *bdir = resolved(r->a, cfg->build_dir), *ddir = resolved(r->a, cfg->dist_dir);
	const char *proj = resolved(r->a, cfg->project_dir);
	bool ok = true;
	for (size_t i = 0; i < cfg->packages.n; i++) {
		const char *e = cfg->packages.v[i];
		const char *pdir = resolved(r->a, os_join(r->a, cfg->project_dir, e));
		const char *what = NULL, *dir = NULL;
		/* A project unpacked from an sdist lives in the build dir: only a build or dist
		 * dir inside the project can be reached by its packages. (An output dir inside
		 * or equal to a package is refused at its own key: cli/plan_common.c.) */
		if (under(pdir, bdir) && strcmp(pdir, bdir) && under(bdir, proj))
			what = "build", dir = cfg->build_dir;
		else if (under(pdir, ddir) && strcmp(pdir, ddir) && under(ddir, proj))
			what = "dist", dir = cfg->dist_dir;
		if (!what)
			continue;
		const struct toml_value *at =
		    pk && pk->type == TOML_ARRAY && i < pk->u.array.len ? pk->u.array.items[i] : pk;
		const char *msg =
		    arena_printf(r->a,
		                 "packages entry '%s' is inside the %s directory %s: the wheel "
		                 "would ship cuwheel's own outputs",
		                 config_shown(r->a, e), what, config_shown(r->a, dir));
		if (at)
			cfg_error(r, at, "%s", msg);
		else
			diag_path(r->d, DIAG_ERROR, cfg->project_dir, "%s", msg), r->ok = false;
		diag_msg(r->d, DIAG_HINT, "ship a package directory outside %s-dir", what);
		ok = false;
	}
	return ok;
}

/* Why dest (a python-files key) is not a file path the wheel can hold, or NULL. */
static const char *python_file_dest_problem(struct arena *a, const char *dest)
{
	const char *shown = config_shown(a, dest);
	char *norm = dest[0] && dest[0] != '/' && !strchr(dest, '\\') ? normalised(a, dest) : NULL;
	if (!norm || strcmp(norm, dest) || dest[strlen(dest) - 1] == '/')
		return arena_printf(a,
		                    "python-files key '%s' is not a normalised relative path of a "
		                    "file in the wheel (\"pkg/mod.py\")",
		                    shown);
	if (strchr(dest, '='))
		return arena_printf(a,
		                    "python-files key '%s' holds '=', which cuwheel's stage step "
		                    "cannot name",
		                    shown);
	size_t n = strcspn(dest, "/");
	if (ends_with_ci(dest, n, ".data") || ends_with_ci(dest, n, ".dist-info"))
		return arena_printf(
		    a,
		    "python-files key '%s' starts with '%.*s', named like a wheel's "
		    "%s directory: installers would treat it as one",
		    shown, (int)n, dest, ends_with_ci(dest, n, ".data") ? ".data" : ".dist-info");
	return NULL;
}

/* Why src (a python-files value) is not a regular file of the project that can be staged. */
static const char *python_file_src_problem(struct arena *a, const struct config *cfg,
                                           const char *root, const char *src)
{
	const char *shown = config_shown(a, src);
	char *norm = src[0] && src[0] != '/' && !strchr(src, '\\') ? normalised(a, src) : NULL;
	if (!norm || strcmp(norm, src))
		return arena_printf(a,
		                    "python-files value '%s' is not a normalised path relative to "
		                    "the project directory",
		                    shown);
	const char *why = config_confine(a, root, cfg->project_dir, src);
	if (why)
		return why;
	const char *path = os_join(a, cfg->project_dir, src);
	if (!os_exists(path) || os_is_dir(path) || config_is_special_file(path))
		return arena_printf(a, "python-files value '%s' is not a regular file in %s", shown,
		                    cfg->project_dir);
	return NULL;
}

bool config_read_python_files(struct cfg_reader *r, struct config *cfg,
                              const struct toml_value *tool)
{
	const char *where = "[tool.cuwheel]";
	const struct toml_value *t = cfg_table(r, tool, "python-files", where);
	if (!t)
		return true;
	const char *root = os_realpath(r->a, cfg->project_dir);
	cfg->python_files.v = arena_calloc(r->a, t->u.table.len + 1, sizeof(*cfg->python_files.v));
	bool ok = true;
	for (size_t i = 0; i < t->u.table.len; i++) {
		const struct toml_kv *kv = &t->u.table.items[i];
		const char *why = NULL;
		if (kv->value->type != TOML_STRING)
			why = arena_printf(r->a, "%s.python-files.%s must be a string, not %s",
			                   where, config_shown(r->a, kv->key),
			                   toml_type_name(kv->value->type));
		else if (strlen(kv->key) != kv->keylen ||
		         strlen(kv->value->u.str.s) != kv->value->u.str.len)
			why = "a python-files path holds a NUL";
		if (!why)
			why = python_file_dest_problem(r->a, kv->key);
		const char *held = why ? NULL : ninja_arg_refusal(kv->key, ARG_PATH);
		if (held)
			why = arena_printf(r->a, "python-files key '%s' holds %s",
			                   config_shown(r->a, kv->key), held);
		if (!why)
			why = python_file_src_problem(r->a, cfg, root ? root : cfg->project_dir,
			                              kv->value->u.str.s);
		held = why ? NULL : ninja_arg_refusal(kv->value->u.str.s, ARG_PATH);
		if (held)
			why = arena_printf(r->a, "python-files value '%s' holds %s",
			                   config_shown(r->a, kv->value->u.str.s), held);
		size_t top = strcspn(kv->key, "/");
		for (size_t p = 0; !why && p < cfg->packages.n; p++) {
			const char *base = config_package_base(cfg->packages.v[p]);
			if (strlen(base) == top && !strncmp(base, kv->key, top) && kv->key[top])
				why = arena_printf(
				    r->a,
				    "python-files key '%s' is inside '%s', which packages "
				    "entry '%s' ships whole",
				    config_shown(r->a, kv->key), config_shown(r->a, base),
				    config_shown(r->a, cfg->packages.v[p]));
		}
		if (why) {
			cfg_error(r, kv->value, "%s", why);
			ok = false;
			continue;
		}
		cfg->python_files.v[cfg->python_files.n].key = kv->key;
		cfg->python_files.v[cfg->python_files.n].value = kv->value->u.str.s;
		cfg->python_files.n++;
	}
	return ok;
}
