/* config_pkginfo.c: the package metadata of a project built with a config file beside it
 * (--config): taken from its PKG-INFO when the config has no [project] table, [project] keys
 * overriding it field by field; where each field came from; and the licence files shipped by
 * default when none are named. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "matrix/config_internal.h"
#include "standards/pkginfo.h"
#include "standards/version.h"

/* The most cuwheel reads of PKG-INFO or of one licence file: far above any real one (a long
 * description of a few hundred kB), far below what could exhaust memory. */
enum { PKGINFO_MAX = 16 << 20, LICENSE_FILE_MAX = 16 << 20 };

/* A file of the project named as the user knows it: "demo-1.0.tar.gz!demo-1.0/LICENSE" for a
 * tree unpacked from an sdist, else its path. */
static const char *member_shown(struct cfg_reader *r, const struct config *cfg, const char *rel)
{
	if (!cfg->sdist_shown)
		return os_join(r->a, cfg->project_dir, rel);
	return arena_printf(r->a, "%s%s", config_project_shown(r->a, cfg),
	                    esc_str(r->a, ESC_TERM, rel));
}

/* Why the licence file rel cannot be shipped, or NULL: it must be a regular file of at most
 * LICENSE_FILE_MAX bytes, reached from the project without leaving it (symlinks inside it are
 * followed one component at a time; pack then reads the file the link leads to). */
static const char *license_file_problem(struct cfg_reader *r, const struct config *cfg,
                                        const char *rel)
{
	if (!config_path_inside(rel))
		return "leads outside the project";
	/* The wheel holds it as .dist-info/licenses/<rel>: a normalised name, as pack requires. */
	for (const char *p = rel;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return "is not a normalised path (an empty, '.' or '..' component): the "
			       "wheel "
			       "holds it as licenses/ and that name";
		if (!p[n])
			break;
		p += n + 1;
	}
	int root = open(cfg->project_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return "cannot open the project directory";
	/* A tree from an sdist is the archive author's: its links stay beneath it. A project of
	 * the user's own may link a licence from its repository (LICENSE -> ../../LICENSE). */
	int fd = cfg->sdist_shown ? os_open_beneath(root, rel, O_RDONLY | O_NONBLOCK)
	                          : openat(root, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int err = errno;
	close(root);
	if (fd < 0)
		return err == EXDEV   ? "leads outside the project (through a symlink)"
		       : err == ELOOP ? "is a symlink loop"
		                      : arena_printf(r->a, "cannot be read: %s", strerror(err));
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		why = "is not a regular file";
	else if ((uint64_t)st.st_size > LICENSE_FILE_MAX)
		why = arena_printf(r->a, "is %llu bytes, over the %d-byte limit for a licence file",
		                   (unsigned long long)st.st_size, LICENSE_FILE_MAX);
	close(fd);
	return why;
}

static void origin(struct config *cfg, struct arena *a, const char *field, const char *from)
{
	struct str_pairs *o = &cfg->meta_origin;
	for (size_t i = 0; i < o->n; i++) {
		if (!strcmp(o->v[i].key, field)) {
			o->v[i].value = from;
			return;
		}
	}
	o->v = arena_realloc(a, o->v, o->n, o->n + 1, sizeof(*o->v));
	o->v[o->n].key = field;
	o->v[o->n].value = from;
	o->n++;
}

/* Fills the model's fields cuwheel itself reads (names, versions, requires-python, licence
 * files) from the PKG-INFO headers; the rest stays in the text METADATA keeps. */
static bool model_from_pkginfo(struct cfg_reader *r, struct config *cfg, const struct pkginfo *pk,
                               const struct source *src)
{
	struct project_meta *p = &cfg->project;
	bool ok = true;
	p->pkginfo = src->text;
	p->pkginfo_len = src->len;
	struct strv dynamic = {0};
	for (size_t i = 0; i < pk->n; i++)
		if (!strcasecmp(pk->v[i].name, "Dynamic"))
			strv_push(r->a, &dynamic, pk->v[i].value);
	for (size_t i = 0; i < pk->n; i++) {
		const struct pkginfo_header *h = &pk->v[i];
		const char *v = h->value;
		if (!strcasecmp(h->name, "Name")) {
			p->name = v;
		} else if (!strcasecmp(h->name, "Version")) {
			struct pep440 pv;
			const char *err = NULL;
			if (!pep440_parse(r->a, v, &pv, &err)) {
				diag_at(r->d, DIAG_ERROR, src, h->line, 10,
				        "Version '%s' is not a PEP 440 version",
				        esc_str(r->a, ESC_TERM, v));
				ok = r->ok = false;
				continue;
			}
			p->version = pep440_public(r->a, &pv);
			p->version_local = pv.local;
		} else if (!strcasecmp(h->name, "Summary")) {
			p->description = v;
		} else if (!strcasecmp(h->name, "Requires-Python")) {
			p->requires_python = v;
		} else if (!strcasecmp(h->name, "License-Expression")) {
			p->license_expression = v;
		} else if (!strcasecmp(h->name, "License-File")) {
			const char *why = license_file_problem(r, cfg, v);
			if (why) {
				diag_at(r->d, DIAG_ERROR, src, h->line, 15,
				        "License-File '%s' is not a file in %s: it %s",
				        esc_str(r->a, ESC_TERM, v), config_project_shown(r->a, cfg),
				        why);
				ok = r->ok = false;
				continue;
			}
			strv_push(r->a, &p->license_files, v);
		} else if (!strcasecmp(h->name, "Dynamic") ||
		           !strcasecmp(h->name, "Metadata-Version")) {
			continue;
		}
		const char *from = arena_printf(r->a, "PKG-INFO:%d", h->line);
		for (size_t k = 0; k < dynamic.n; k++)
			if (!strcasecmp(dynamic.v[k], h->name))
				from = arena_printf(
				    r->a, "%s (Dynamic: as the sdist's backend computed it)", from);
		/* A repeated header (Requires-Dist, Classifier) keeps its first line. */
		bool seen = false;
		for (size_t k = 0; k < cfg->meta_origin.n; k++)
			seen |= !strcmp(cfg->meta_origin.v[k].key, h->name);
		if (!seen)
			origin(cfg, r->a, h->name, from);
	}
	if (pk->body)
		origin(cfg, r->a, "Description (body)", "PKG-INFO (after the headers)");
	return ok;
}

/* The [project] keys given in the config: each replaces its group of PKG-INFO headers. */
static void apply_overrides(struct cfg_reader *r, struct config *cfg, const struct project_meta *pk,
                            const struct toml_value *t)
{
	struct project_meta *p = &cfg->project;
	struct project_meta over = *p;
	*p = *pk;
	static const struct {
		const char *key;
		unsigned group;
	} keys[] = {
#define X(e, key, headers) {key, e},
	    PKGINFO_GROUPS(X)
#undef X
	        {"optional-dependencies", PKGINFO_DEPS},
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		const struct toml_value *v = toml_get(t, keys[i].key);
		if (!v)
			continue;
		p->pkginfo_replaced |= keys[i].group;
		origin(cfg, r->a, arena_printf(r->a, "[project].%s", keys[i].key),
		       arena_printf(r->a, "%s:%d:%d", r->src->path, v->line, v->col));
	}
	unsigned g = p->pkginfo_replaced;
	if (g & PKGINFO_NAME)
		p->name = over.name;
	if (g & PKGINFO_SUMMARY)
		p->description = over.description;
	if (g & PKGINFO_README)
		p->readme_text = over.readme_text, p->readme_type = over.readme_type,
		p->readme_path = over.readme_path;
	if (g & PKGINFO_REQUIRES_PYTHON)
		p->requires_python = over.requires_python;
	if (g & PKGINFO_LICENSE)
		p->license_expression = over.license_expression,
		p->license_text = over.license_text;
	if (g & (PKGINFO_LICENSE_FILES | PKGINFO_LICENSE))
		p->license_files = over.license_files;
	if (g & PKGINFO_AUTHORS)
		p->authors = over.authors, p->n_authors = over.n_authors;
	if (g & PKGINFO_MAINTAINERS)
		p->maintainers = over.maintainers, p->n_maintainers = over.n_maintainers;
	if (g & PKGINFO_KEYWORDS)
		p->keywords = over.keywords;
	if (g & PKGINFO_CLASSIFIERS)
		p->classifiers = over.classifiers;
	if (g & PKGINFO_URLS)
		p->urls = over.urls;
	if (g & PKGINFO_DEPS)
		p->dependencies = over.dependencies, p->extras = over.extras,
		p->n_extras = over.n_extras;
	/* Not core metadata headers: entry_points.txt is written from the model. */
	p->scripts = over.scripts;
	p->gui_scripts = over.gui_scripts;
	p->entry_points = over.entry_points;
	p->n_entry_points = over.n_entry_points;
	if (toml_get(t, "version")) {
		p->version = over.version;
		p->version_local = over.version_local;
		origin(cfg, r->a, "[project].version",
		       arena_printf(r->a, "%s:%d:%d", r->src->path, toml_get(t, "version")->line,
		                    toml_get(t, "version")->col));
	}
}

bool config_read_metadata(struct cfg_reader *r, struct config *cfg)
{
	const struct toml_value *t = toml_get(cfg->root, "project");
	char *path = os_join(r->a, cfg->project_dir, "PKG-INFO");
	struct os_stat lst;
	if (!cfg->config_file || !os_lstat(path, &lst)) {
		if (cfg->config_file && !t) {
			int pp = config_read_project_pyproject(r, cfg);
			if (pp >= 0)
				return pp == 1;
			cfg_error(
			    r, NULL,
			    "no [project] table here and no PKG-INFO in %s: cuwheel needs the "
			    "package metadata from one of them",
			    cfg->project_dir);
			diag_msg(
			    r->d, DIAG_HINT,
			    "build from the project's sdist (it holds PKG-INFO), or add [project] "
			    "with name and version to the config");
			return false;
		}
		bool ok = config_read_project(r, cfg);
		if (t)
			origin(cfg, r->a, "[project]", arena_printf(r->a, "%s", r->src->path));
		return ok;
	}
	/* Read beneath the tree, bounded, and checked as core metadata before anything of it is
	 * used: PKG-INFO is the sdist author's text, as untrusted as the archive. */
	struct beneath_read br = {.root = cfg->project_dir,
	                          .rel = "PKG-INFO",
	                          .shown = member_shown(r, cfg, "PKG-INFO"),
	                          .max = PKGINFO_MAX,
	                          .what = "PKG-INFO"};
	struct source src;
	if (!os_read_beneath(r->a, r->d, &br, &src))
		return r->ok = false;
	struct pkginfo pk;
	if (!pkginfo_parse(r->a, r->d, &src, &pk) || !pkginfo_validate(r->a, r->d, &src, &pk))
		return r->ok = false;
	if (!model_from_pkginfo(r, cfg, &pk, &src))
		return false;
	/* The sdist's file list is what its MANIFEST chose: dot-files in it are package data. */
	cfg->ship_hidden = true;
	if (!t)
		return true;
	struct project_meta from_pkginfo = cfg->project;
	memset(&cfg->project, 0, sizeof(cfg->project));
	cfg->project_partial = true;
	bool ok = config_read_project(r, cfg);
	apply_overrides(r, cfg, &from_pkginfo, t);
	return ok;
}

/* The names setuptools (and PEP 639's examples) ship by default: LICEN[CS]E*, COPYING*,
 * NOTICE*, AUTHORS*, at the top of the project. */
bool config_default_license_files(struct cfg_reader *r, struct config *cfg)
{
	struct project_meta *p = &cfg->project;
	const struct toml_value *t = toml_get(cfg->root, "project");
	if (p->license_files.n || toml_get(t, "license-files") ||
	    (p->pkginfo && !(p->pkginfo_replaced & PKGINFO_LICENSE_FILES) &&
	     strstr(p->pkginfo, "\nLicense-File:")))
		return true;
	struct strv names = {0};
	if (!os_list_dir(r->a, cfg->project_dir, &names))
		return true;
	static const char *const pats[] = {"LICEN[CS]E*", "COPYING*", "NOTICE*", "AUTHORS*"};
	for (size_t i = 0; i < names.n; i++) {
		for (size_t k = 0; k < sizeof(pats) / sizeof(*pats); k++) {
			char *full = os_join(r->a, cfg->project_dir, names.v[i]);
			if (fnmatch(pats[k], names.v[i], 0) != 0 || os_is_dir(full))
				continue;
			/* Found now what pack would refuse later (a dangling or outward link, a
			 * file over the limit). */
			const char *why = license_file_problem(r, cfg, names.v[i]);
			if (why && !config_is_special_file(full)) {
				diag_path(
				    r->d, DIAG_ERROR, member_shown(r, cfg, names.v[i]),
				    "licence file (shipped by default: no license-files given) "
				    "%s",
				    why);
				return r->ok = false;
			}
			if (!why) {
				strv_push(r->a, &p->license_files, names.v[i]);
				break;
			}
		}
	}
	if (p->license_files.n) {
		char *list = "";
		for (size_t i = 0; i < p->license_files.n; i++)
			list =
			    arena_printf(r->a, "%s%s%s", list, i ? " " : "", p->license_files.v[i]);
		origin(cfg, r->a, "License-File",
		       arena_printf(r->a,
		                    "default: %s (no license-files given: LICEN[CS]E*, COPYING*, "
		                    "NOTICE*, AUTHORS* at the project's top, as setuptools does)",
		                    list));
		if (p->pkginfo)
			p->pkginfo_replaced |= PKGINFO_LICENSE_FILES;
	}
	return true;
}
