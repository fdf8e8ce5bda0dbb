/* project.h: a project's core metadata as PEP 621 [project] describes it, which METADATA,
 * entry_points.txt and the wheel's name are written from. */
#ifndef CUWHEEL_STANDARDS_PROJECT_H
#define CUWHEEL_STANDARDS_PROJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"

struct str_pair {
	const char *key, *value;
};
struct str_pairs {
	struct str_pair *v;
	size_t n;
};

struct person {
	const char *name;  /* may be NULL */
	const char *email; /* may be NULL */
};

struct extra {
	const char *name; /* normalised extra name */
	struct strv deps;
};

struct entry_group {
	const char *group; /* e.g. "console_scripts" */
	struct str_pairs entries;
};

/* [project], PEP 621. Strings are NULL when absent. */
struct project_meta {
	const char *name;          /* as written */
	const char *version;       /* PEP 440 normalised, without a local label */
	const char *version_local; /* a local label written in the file, or NULL */
	const char *description;
	const char *readme_text; /* contents of the readme file or inline text */
	const char *readme_path; /* relative path, when from a file */
	const char *readme_type; /* text/markdown, text/x-rst or text/plain */
	const char *requires_python;
	const char *license_expression; /* SPDX expression (PEP 639) */
	const char *license_text;       /* legacy license = {text = ...} or {file = ...} contents */
	struct strv license_files;      /* resolved, project-relative, '/'-separated, sorted */
	struct person *authors;
	size_t n_authors;
	struct person *maintainers;
	size_t n_maintainers;
	struct strv keywords;
	struct strv classifiers;
	struct str_pairs urls;    /* label -> URL, document order */
	struct strv dependencies; /* PEP 508 strings as written */
	struct extra *extras;
	size_t n_extras;
	struct str_pairs scripts;
	struct str_pairs gui_scripts;
	struct entry_group *entry_points;
	size_t n_entry_points;
	/* An sdist's PKG-INFO, when the metadata comes from it (no [project] table): METADATA
	 * keeps its headers verbatim but for Version and the groups [project] overrides. */
	const char *pkginfo;
	size_t pkginfo_len;
	unsigned pkginfo_replaced; /* PKGINFO_* bits */
};

/* Header groups of core metadata that one [project] key replaces as a whole. */
#define PKGINFO_GROUPS(X)                                                                          \
	X(PKGINFO_NAME, "name", "Name")                                                            \
	X(PKGINFO_SUMMARY, "description", "Summary")                                               \
	X(PKGINFO_README, "readme", "Description Description-Content-Type")                        \
	X(PKGINFO_REQUIRES_PYTHON, "requires-python", "Requires-Python")                           \
	X(PKGINFO_LICENSE, "license", "License License-Expression")                                \
	X(PKGINFO_LICENSE_FILES, "license-files", "License-File")                                  \
	X(PKGINFO_AUTHORS, "authors", "Author Author-email")                                       \
	X(PKGINFO_MAINTAINERS, "maintainers", "Maintainer Maintainer-email")                       \
	X(PKGINFO_KEYWORDS, "keywords", "Keywords")                                                \
	X(PKGINFO_CLASSIFIERS, "classifiers", "Classifier")                                        \
	X(PKGINFO_URLS, "urls", "Project-URL")                                                     \
	X(PKGINFO_DEPS, "dependencies", "Requires-Dist Provides-Extra")
enum {
#define X(e, key, headers) e##_BIT,
	PKGINFO_GROUPS(X)
#undef X
};
enum {
#define X(e, key, headers) e = 1 << e##_BIT,
	PKGINFO_GROUPS(X)
#undef X
};

/* Returns m as JSON text (format 1, with the project directory its relative paths start from),
 * for the build steps that must not read pyproject.toml again. */
char *project_meta_render(struct arena *a, const struct project_meta *m, const char *project_dir);
/* Reads what project_meta_render wrote (strings in the arena). False + diagnostic naming path. */
bool project_meta_read(struct arena *a, struct diag *d, const char *path, struct project_meta *m,
                       const char **project_dir);

#endif
