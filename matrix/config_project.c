/* config_project.c: [project] (PEP 621) into struct project_meta, validated where it is read. */
#include <ctype.h>
#include <fnmatch.h>
#include <glob.h>
#include <string.h>

#include <stdint.h>

#include "base/beneath.h"
#include "base/os-file.h"
#include "matrix/config_internal.h"
#include "standards/entry_points.h"
#include "standards/tags.h"
#include "standards/version.h"

static const char *const project_keys[] = {
    "name",
    "version",
    "description",
    "readme",
    "requires-python",
    "license",
    "license-files",
    "authors",
    "maintainers",
    "keywords",
    "classifiers",
    "urls",
    "dependencies",
    "optional-dependencies",
    "scripts",
    "gui-scripts",
    "entry-points",
    "dynamic",
    "import-names",
    "import-namespaces",
};

static bool read_people(struct cfg_reader *r, const struct toml_value *t, const char *key,
                        struct person **out, size_t *n)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v)
		return true;
	if (v->type != TOML_ARRAY) {
		cfg_error(r, v,
		          "[project].%s must be an array of tables like {name = \"...\", "
		          "email = \"...\"}",
		          key);
		return false;
	}
	*out = arena_calloc(r->a, v->u.array.len, sizeof(**out));
	*n = 0;
	bool ok = true;
	static const char *const person_keys[] = {"name", "email"};
	for (size_t i = 0; i < v->u.array.len; i++) {
		const struct toml_value *e = v->u.array.items[i];
		if (e->type != TOML_TABLE) {
			cfg_error(r, e, "[project].%s[%zu] must be a table with name and/or email",
			          key, i);
			ok = false;
			continue;
		}
		char *where = arena_printf(r->a, "[project].%s[%zu]", key, i);
		ok &= cfg_check_keys(r, e, where, person_keys, 2);
		struct person *p = &(*out)[*n];
		ok &= cfg_string(r, e, "name", where, &p->name);
		ok &= cfg_string(r, e, "email", where, &p->email);
		if (!p->name && !p->email) {
			cfg_error(r, e, "%s needs a name or an email", where);
			ok = false;
			continue;
		}
		if (p->name && strpbrk(p->name, ",")) {
			cfg_error(r, toml_get(e, "name"),
			          "%s.name must not contain a comma (core metadata joins names "
			          "with commas)",
			          where);
			ok = false;
		}
		if (p->email && !strchr(p->email, '@')) {
			cfg_error(r, toml_get(e, "email"), "%s.email '%s' is not an email address",
			          where, p->email);
			ok = false;
		}
		(*n)++;
	}
	return ok;
}

static const char *readme_type_for(const char *path)
{
	const char *dot = strrchr(path, '.');
	if (!dot)
		return NULL;
	if (!strcasecmp(dot, ".md") || !strcasecmp(dot, ".markdown"))
		return "text/markdown";
	if (!strcasecmp(dot, ".rst"))
		return "text/x-rst";
	if (!strcasecmp(dot, ".txt"))
		return "text/plain";
	return NULL;
}

enum { CONFIG_README_MAX = 16 << 20 }; /* as PKG-INFO's limit (config_pkginfo.c) */

/* Reads a project-relative file named in the config; reports at v when it cannot. */
static const char *read_project_file(struct cfg_reader *r, struct config *cfg,
                                     const struct toml_value *v, const char *rel)
{
	if (!config_path_inside(rel)) {
		cfg_error(r, v, "'%s' is outside the project directory", rel);
		return NULL;
	}
	struct source s;
	struct diag quiet = {0};
	const char *path = os_join(r->a, cfg->project_dir, rel);
	const char *root = os_realpath(r->a, cfg->project_dir);
	const char *why =
	    config_confine(r->a, root ? root : cfg->project_dir, cfg->project_dir, rel);
	if (!why && (strpbrk(rel, "\n\r|")))
		why =
		    arena_printf(r->a, "'%s' holds a line break or '|': build.ninja cannot name it",
		                 config_shown(r->a, rel));
	if (why) {
		cfg_error(r, v, "%s", why);
		return NULL;
	}
	if (config_is_special_file(path)) {
		cfg_error(r, v, "'%s' is not a regular file (relative to %s)", rel,
		          cfg->project_dir);
		return NULL;
	}
	/* Bounded, and resolved beneath the project (symlinks followed one component at a time):
	 * in a tree unpacked from an sdist this is the archive author's file. */
	struct beneath_read br = {.root = cfg->project_dir,
	                          .rel = rel,
	                          .shown = path,
	                          .max = CONFIG_README_MAX,
	                          .what = "a readme"};
	if (!os_read_beneath(r->a, &quiet, &br, &s)) {
		struct os_stat st;
		if (os_stat(path, &st) && st.size > CONFIG_README_MAX)
			cfg_error(r, v, "'%s' is %llu bytes, over the %d-byte limit for a readme",
			          config_shown(r->a, rel), (unsigned long long)st.size,
			          CONFIG_README_MAX);
		else
			cfg_error(r, v, "cannot read '%s' (relative to %s)", rel, cfg->project_dir);
		return NULL;
	}
	return s.text;
}

static bool read_readme(struct cfg_reader *r, struct config *cfg, const struct toml_value *t)
{
	struct project_meta *p = &cfg->project;
	const struct toml_value *v = toml_get(t, "readme");
	if (!v)
		return true;
	if (v->type == TOML_STRING) {
		p->readme_path = v->u.str.s;
		p->readme_type = readme_type_for(p->readme_path);
		if (!p->readme_type) {
			cfg_error(r, v, "cannot tell the content type of readme '%s'",
			          p->readme_path);
			diag_msg(r->d, DIAG_HINT,
			         "use readme = {file = \"%s\", content-type = "
			         "\"text/markdown\"}",
			         p->readme_path);
			return false;
		}
		p->readme_text = read_project_file(r, cfg, v, p->readme_path);
		return p->readme_text != NULL;
	}
	if (v->type != TOML_TABLE) {
		cfg_error(r, v, "[project].readme must be a file name or a table, not %s",
		          cfg_a_type(r->a, v->type));
		return false;
	}
	static const char *const keys[] = {"file", "text", "content-type"};
	bool ok = cfg_check_keys(r, v, "[project].readme", keys, 3);
	const char *file = NULL, *text = NULL, *type = NULL;
	ok &= cfg_string(r, v, "file", "[project].readme", &file);
	ok &= cfg_string(r, v, "text", "[project].readme", &text);
	ok &= cfg_string(r, v, "content-type", "[project].readme", &type);
	if (file && text) {
		cfg_error(r, v, "[project].readme takes 'file' or 'text', not both");
		return false;
	}
	if (!file && !text) {
		cfg_error(r, v, "[project].readme needs 'file' or 'text'");
		return false;
	}
	if (!type) {
		cfg_error(r, v, "[project].readme as a table needs 'content-type'");
		return false;
	}
	if (strncmp(type, "text/markdown", 13) && strncmp(type, "text/x-rst", 10) &&
	    strncmp(type, "text/plain", 10)) {
		cfg_error(r, toml_get(v, "content-type"),
		          "readme content-type '%s' is not text/markdown, text/x-rst or "
		          "text/plain",
		          type);
		ok = false;
	}
	p->readme_type = type;
	if (file) {
		p->readme_path = file;
		p->readme_text = read_project_file(r, cfg, toml_get(v, "file"), file);
		ok &= p->readme_text != NULL;
	} else {
		p->readme_text = text;
	}
	return ok;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static bool read_license(struct cfg_reader *r, struct config *cfg, const struct toml_value *t)
{
	struct project_meta *p = &cfg->project;
	bool ok = true;
	const struct toml_value *v = toml_get(t, "license");
	if (v && v->type == TOML_STRING) {
		if (!config_spdx_valid(v->u.str.s)) {
			cfg_error(r, v, "license '%s' is not a valid SPDX license expression",
			          v->u.str.s);
			diag_msg(r->d, DIAG_HINT,
			         "write identifiers joined by AND/OR/WITH, e.g. \"MIT\" or "
			         "\"Apache-2.0 OR MIT\"");
			ok = false;
		}
		p->license_expression = v->u.str.s;
	} else if (v && v->type == TOML_TABLE) {
		static const char *const keys[] = {"file", "text"};
		ok &= cfg_check_keys(r, v, "[project].license", keys, 2);
		const char *file = NULL, *text = NULL;
		ok &= cfg_string(r, v, "file", "[project].license", &file);
		ok &= cfg_string(r, v, "text", "[project].license", &text);
		if (!!file == !!text) {
			cfg_error(r, v,
			          "[project].license as a table needs exactly one of 'file' "
			          "or 'text'");
			ok = false;
		} else if (file) {
			p->license_text = read_project_file(r, cfg, toml_get(v, "file"), file);
			ok &= p->license_text != NULL;
			strv_push(r->a, &p->license_files, file);
		} else {
			p->license_text = text;
		}
	} else if (v) {
		cfg_error(r, v,
		          "[project].license must be an SPDX expression string (or the "
		          "legacy table), not %s",
		          cfg_a_type(r->a, v->type));
		ok = false;
	}

	struct strv globs = {0};
	ok &= cfg_strv(r, t, "license-files", "[project]", false, &globs);
	const struct toml_value *lf = toml_get(t, "license-files");
	if (lf && v && v->type == TOML_TABLE) {
		cfg_error(r, lf, "license-files cannot be used with the legacy license table");
		return false;
	}
	for (size_t i = 0; i < globs.n; i++) {
		const struct toml_value *at = lf->u.array.items[i];
		struct strv matches = {0};
		if (!config_glob(r, cfg, at, globs.v[i], &matches))
			ok = false;
		for (size_t k = 0; k < matches.n; k++) {
			const char *why = ninja_arg_refusal(matches.v[k], ARG_PATH);
			if (why) {
				cfg_error(r, at, "'%s' names a file whose name holds %s",
				          config_shown(r->a, matches.v[k]), why);
				ok = false;
			}
		}
		for (size_t k = 0; k < matches.n; k++)
			if (!strv_contains(&p->license_files, matches.v[k]))
				strv_push(r->a, &p->license_files, matches.v[k]);
	}
	if (p->license_files.n)
		qsort(p->license_files.v, p->license_files.n, sizeof(char *), cmp_str);
	return ok;
}

/* Checks the names and object references of t[key] (a table of strings) against the
 * entry-points specification, each at its own key or value. */
static bool check_entries(struct cfg_reader *r, const struct toml_value *t, const char *key,
                          bool script)
{
	const struct toml_value *v = toml_get(t, key);
	if (!v || v->type != TOML_TABLE)
		return true;
	bool ok = true;
	for (size_t i = 0; i < v->u.table.len; i++) {
		const struct toml_kv *kv = &v->u.table.items[i];
		const char *why = strlen(kv->key) != kv->keylen
		                      ? "a NUL byte in the name"
		                      : entry_point_name_problem(kv->key, script);
		if (why) {
			cfg_error_key(r, kv, "entry point '%s' has %s", config_shown(r->a, kv->key),
			              why);
			ok = false;
		}
		if (kv->value->type != TOML_STRING)
			continue;
		why = entry_point_ref_problem(kv->value->u.str.s, script);
		if (why) {
			cfg_error(r, kv->value, "entry point '%s' = '%s' has %s",
			          config_shown(r->a, kv->key),
			          config_shown(r->a, kv->value->u.str.s), why);
			if (script)
				diag_msg(r->d, DIAG_HINT, "write \"package.module:function\"");
			ok = false;
		}
	}
	return ok;
}

static bool read_urls_and_entry_points(struct cfg_reader *r, const struct toml_value *t,
                                       struct project_meta *p)
{
	bool ok = cfg_str_table(r, t, "urls", "[project]", &p->urls);
	for (size_t i = 0; i < p->urls.n; i++) {
		if (strlen(p->urls.v[i].key) > 32) {
			cfg_error(r, toml_get(t, "urls"),
			          "[project].urls label '%s' is longer than 32 characters",
			          p->urls.v[i].key);
			ok = false;
		}
	}
	ok &= cfg_str_table(r, t, "scripts", "[project]", &p->scripts);
	ok &= cfg_str_table(r, t, "gui-scripts", "[project]", &p->gui_scripts);
	ok &= check_entries(r, t, "scripts", true);
	ok &= check_entries(r, t, "gui-scripts", true);
	const struct toml_value *ep = cfg_table(r, t, "entry-points", "[project]");
	if (!ep)
		return ok;
	p->entry_points = arena_calloc(r->a, ep->u.table.len, sizeof(*p->entry_points));
	for (size_t i = 0; i < ep->u.table.len; i++) {
		const struct toml_kv *kv = &ep->u.table.items[i];
		if (!strcmp(kv->key, "console_scripts") || !strcmp(kv->key, "gui_scripts")) {
			cfg_error_key(r, kv,
			              "[project.entry-points.%s] is not allowed: use "
			              "[project.%s]",
			              kv->key, kv->key[0] == 'c' ? "scripts" : "gui-scripts");
			ok = false;
			continue;
		}
		const char *why = strlen(kv->key) != kv->keylen
		                      ? "a NUL byte in the group name"
		                      : entry_point_group_problem(kv->key);
		if (why) {
			cfg_error_key(r, kv, "entry-point group '%s' has %s",
			              config_shown(r->a, kv->key), why);
			ok = false;
			continue;
		}
		struct entry_group *g = &p->entry_points[p->n_entry_points++];
		g->group = kv->key;
		ok &= cfg_str_table(r, ep, kv->key, "[project.entry-points]", &g->entries);
		ok &= check_entries(r, ep, kv->key, false);
	}
	return ok;
}

static bool read_extras(struct cfg_reader *r, const struct toml_value *t, struct project_meta *p)
{
	const struct toml_value *od = cfg_table(r, t, "optional-dependencies", "[project]");
	if (!od)
		return true;
	bool ok = true;
	p->extras = arena_calloc(r->a, od->u.table.len, sizeof(*p->extras));
	for (size_t i = 0; i < od->u.table.len; i++) {
		const struct toml_kv *kv = &od->u.table.items[i];
		if (!name_is_valid(kv->key)) {
			cfg_error_key(r, kv, "'%s' is not a valid extra name", kv->key);
			ok = false;
			continue;
		}
		struct extra *e = &p->extras[p->n_extras++];
		e->name = name_normalize(r->a, kv->key);
		ok &= cfg_strv(r, od, kv->key, "[project.optional-dependencies]", false, &e->deps);
	}
	return ok;
}

/* METADATA is an email header block: a line break in any field ends it early or forges the next
 * header. Every string and key under [project] but the readme's and license's text is one line;
 * each one that is not is reported where it is written. */
static bool check_one_line(struct cfg_reader *r, const struct toml_value *v, const char *where)
{
	bool ok = true;
	if (v->type == TOML_STRING) {
		if (strpbrk(v->u.str.s, "\n\r") || strlen(v->u.str.s) != v->u.str.len) {
			cfg_error(r, v, "%s '%s' holds a line break: METADATA fields are one line",
			          where, config_shown(r->a, v->u.str.s));
			ok = false;
		}
	} else if (v->type == TOML_ARRAY) {
		for (size_t i = 0; i < v->u.array.len; i++)
			ok &= check_one_line(r, v->u.array.items[i], where);
	} else if (v->type == TOML_TABLE) {
		for (size_t i = 0; i < v->u.table.len; i++) {
			const struct toml_kv *kv = &v->u.table.items[i];
			const char *sub =
			    arena_printf(r->a, "%s.%s", where, config_shown(r->a, kv->key));
			if (strpbrk(kv->key, "\n\r") || strlen(kv->key) != kv->keylen) {
				cfg_error_key(r, kv,
				              "%s: the key '%s' holds a line break: METADATA "
				              "fields are one line",
				              where, config_shown(r->a, kv->key));
				ok = false;
				continue;
			}
			ok &= check_one_line(r, kv->value, sub);
		}
	}
	return ok;
}

bool config_read_project(struct cfg_reader *r, struct config *cfg)
{
	struct project_meta *p = &cfg->project;
	const struct toml_value *t = toml_get(cfg->root, "project");
	if (!t) {
		cfg_error(r, NULL,
		          "no [project] table: cuwheel reads the name, version and "
		          "metadata from it (PEP 621)");
		return false;
	}
	if (t->type != TOML_TABLE) {
		cfg_error(r, t, "[project] must be a table");
		return false;
	}
	bool ok = cfg_check_keys(r, t, "[project]", project_keys,
	                         sizeof(project_keys) / sizeof(*project_keys));

	struct strv dynamic = {0};
	ok &= cfg_strv(r, t, "dynamic", "[project]", false, &dynamic);
	for (size_t i = 0; i < dynamic.n; i++) {
		const struct toml_value *at = toml_get(t, "dynamic")->u.array.items[i];
		if (toml_get(t, dynamic.v[i])) {
			cfg_error(r, at, "'%s' is listed in dynamic but also given in [project]",
			          dynamic.v[i]);
		} else {
			cfg_error(r, at,
			          "cuwheel cannot compute dynamic '%s': it runs no build "
			          "backend",
			          dynamic.v[i]);
			diag_msg(r->d, DIAG_HINT,
			         "write %s in [project] and remove it from "
			         "dynamic",
			         dynamic.v[i]);
		}
		ok = false;
	}

	ok &= cfg_string(r, t, "name", "[project]", &p->name);
	if (!p->name && cfg->project_partial) {
		/* PKG-INFO gives it */
	} else if (!p->name) {
		cfg_error(r, t, "[project] needs a name");
		ok = false;
	} else if (!name_is_valid(p->name)) {
		cfg_error(r, toml_get(t, "name"),
		          "'%s' is not a valid project name (letters, "
		          "digits, '-', '_' and '.', starting and ending "
		          "with a letter or digit)",
		          p->name);
		ok = false;
	}

	const char *version = NULL;
	ok &= cfg_string(r, t, "version", "[project]", &version);
	if (!version && !strv_contains(&dynamic, "version") && !cfg->project_partial) {
		cfg_error(r, t, "[project] needs a version");
		ok = false;
	} else if (version) {
		struct pep440 v;
		const char *err = NULL;
		if (!pep440_parse(r->a, version, &v, &err)) {
			cfg_error(
			    r, toml_get(t, "version"), "[project].version: %s",
			    err ? err
			        : arena_printf(r->a, "'%s' is not a PEP 440 version", version));
			diag_msg(r->d, DIAG_HINT,
			         "write a PEP 440 version such as \"1.2.0\", "
			         "\"1.2.0rc1\" or \"1.2.0.post1\"");
			ok = false;
		} else {
			p->version = pep440_public(r->a, &v);
			p->version_local = v.local;
			if (v.local && strlen(v.local) > CONFIG_LOCAL_MAX) {
				cfg_error(r, toml_get(t, "version"),
				          "[project].version's local label is %zu characters long; "
				          "at most %d fit in a wheel's file name",
				          strlen(v.local), CONFIG_LOCAL_MAX);
				ok = false;
			}
		}
	}

	ok &= cfg_string(r, t, "description", "[project]", &p->description);
	if (p->description && strpbrk(p->description, "\n\r")) {
		cfg_error(r, toml_get(t, "description"),
		          "[project].description must be one line (the summary); long text goes "
		          "in readme");
		ok = false;
	}
	ok &= read_readme(r, cfg, t);
	ok &= cfg_string(r, t, "requires-python", "[project]", &p->requires_python);
	if (p->requires_python) {
		struct pep440 probe;
		const char *err = NULL;
		pep440_parse(r->a, "3.12", &probe, &err);
		pep440_satisfies(r->a, &probe, p->requires_python, &err);
		if (err) {
			cfg_error(r, toml_get(t, "requires-python"),
			          "requires-python '%s' is not a valid specifier set: %s",
			          p->requires_python, err);
			ok = false;
		}
	}
	ok &= read_license(r, cfg, t);
	ok &= read_people(r, t, "authors", &p->authors, &p->n_authors);
	ok &= read_people(r, t, "maintainers", &p->maintainers, &p->n_maintainers);
	ok &= cfg_strv(r, t, "keywords", "[project]", false, &p->keywords);
	ok &= cfg_strv(r, t, "classifiers", "[project]", false, &p->classifiers);
	for (size_t i = 0; i < p->classifiers.n; i++) {
		if (p->license_expression && !strncmp(p->classifiers.v[i], "License ::", 10)) {
			cfg_error(r, toml_get(t, "classifiers")->u.array.items[i],
			          "a License :: classifier cannot be combined with an SPDX license "
			          "expression (PEP 639)");
			ok = false;
		}
	}
	ok &= cfg_strv(r, t, "dependencies", "[project]", false, &p->dependencies);
	ok &= read_extras(r, t, p);
	ok &= read_urls_and_entry_points(r, t, p);
	for (size_t i = 0; i < t->u.table.len; i++) {
		const struct toml_kv *kv = &t->u.table.items[i];
		if (strcmp(kv->key, "readme") && strcmp(kv->key, "license") &&
		    strcmp(kv->key, "description") && strcmp(kv->key, "scripts") &&
		    strcmp(kv->key, "gui-scripts") && strcmp(kv->key, "entry-points"))
			ok &= check_one_line(r, kv->value,
			                     arena_printf(r->a, "[project].%s", kv->key));
	}
	return ok;
}

int config_read_project_pyproject(struct cfg_reader *r, struct config *cfg)
{
	const char *path = os_join(r->a, cfg->project_dir, "pyproject.toml");
	if (!cfg->config_file || !os_exists(path) || config_is_special_file(path))
		return -1;
	struct source *src = arena_calloc(r->a, 1, sizeof(*src));
	if (!os_read_file(r->a, r->d, path, src))
		return 0;
	src->path = path;
	struct toml_value *root = toml_parse(r->a, r->d, src);
	if (!root)
		return 0;
	if (!toml_get(root, "project"))
		return -1;
	/* Read as if it were the config's own [project], located in pyproject.toml. */
	const struct toml_value *saved_root = cfg->root;
	struct cfg_reader pr = *r;
	pr.src = src;
	cfg->root = root;
	bool ok = config_read_project(&pr, cfg);
	cfg->root = saved_root;
	if (!pr.ok)
		r->ok = false;
	struct str_pairs *o = &cfg->meta_origin;
	o->v = arena_realloc(r->a, o->v, o->n, o->n + 1, sizeof(*o->v));
	o->v[o->n].key = "[project]";
	o->v[o->n++].value =
	    arena_printf(r->a, "%s (the project's own; the config has none)", path);
	return ok ? 1 : 0;
}
