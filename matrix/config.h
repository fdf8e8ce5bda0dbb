/* config.h: the project model read from pyproject.toml ([project] and [tool.cuwheel]) with
 * CUWHEEL_* environment overrides applied. */
#ifndef CUWHEEL_MATRIX_CONFIG_H
#define CUWHEEL_MATRIX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/toml.h"

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
	const char *name;  /* normalised extra name */
	struct strv deps;
};

struct entry_group {
	const char *group; /* e.g. "console_scripts" */
	struct str_pairs entries;
};

/* [project], PEP 621. Strings are NULL when absent. */
struct project_meta {
	const char *name;             /* as written */
	const char *version;          /* PEP 440 normalised, without a local label */
	const char *version_local;    /* a local label written in the file, or NULL */
	const char *description;
	const char *readme_text;      /* contents of the readme file or inline text */
	const char *readme_path;      /* relative path, when from a file */
	const char *readme_type;      /* text/markdown, text/x-rst or text/plain */
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
	struct str_pairs urls;          /* label -> URL, document order */
	struct strv dependencies;       /* PEP 508 strings as written */
	struct extra *extras;
	size_t n_extras;
	struct str_pairs scripts;
	struct str_pairs gui_scripts;
	struct entry_group *entry_points;
	size_t n_entry_points;
};

#define CUDART_KINDS(X)                                                                            \
	X(CUDART_STATIC, "static")                                                                 \
	X(CUDART_SHARED, "shared")
enum cudart_kind {
#define X(e, s) e,
	CUDART_KINDS(X)
#undef X
};

#define EXT_KINDS(X)                                                                               \
	X(EXT_CAPI, "capi")                                                                        \
	X(EXT_ABI3, "abi3")                                                                        \
	X(EXT_PYBIND11, "pybind11")                                                                \
	X(EXT_TORCH, "torch")
enum ext_kind {
#define X(e, s) e,
	EXT_KINDS(X)
#undef X
};

#define TRISTATES(X)                                                                               \
	X(TRI_AUTO, "auto")                                                                        \
	X(TRI_ON, "on")                                                                            \
	X(TRI_OFF, "off")
enum tristate {
#define X(e, s) e,
	TRISTATES(X)
#undef X
};

/* One entry of a TORCH_CUDA_ARCH_LIST-style list: 8.6, 9.0a, 10.0f, 12.0+PTX. */
struct arch {
	int major, minor;
	char suffix; /* '\0', 'a' or 'f' */
	bool ptx;    /* also embed PTX for this arch */
};

struct kernels_cfg {
	struct strv sources;      /* globs as written, project-relative */
	struct strv files;        /* resolved sources, project-relative, sorted */
	struct strv include_dirs;
	struct strv defines;      /* NAME or NAME=VALUE */
	struct strv nvcc_flags;
	struct strv host_flags;
	struct arch *archs;
	size_t n_archs;
	const char *archs_text;   /* as written, for messages */
	enum cudart_kind cudart;
	bool rdc;
	enum tristate uses_torch; /* kernels include torch headers: auto = detect from depfiles */
	const struct toml_value *where; /* [tool.cuwheel.kernels], for messages */
};

struct extension_cfg {
	const char *module;       /* dotted: "tinyraster._C" */
	enum ext_kind kind;
	struct strv sources;      /* globs as written */
	struct strv files;        /* resolved */
	struct strv include_dirs;
	struct strv defines;
	struct strv cflags;
	struct strv ldflags;
	struct strv libraries;
	enum tristate pch;        /* torch kind: force a precompiled torch/extension.h first;
	                           * auto = where the preprocessor says it keeps the meaning */
	struct strv pch_exclude;  /* globs of sources compiled without it */
	const struct toml_value *where;
};

/* One include/exclude entry: NULL fields are wildcards. */
struct matrix_entry {
	const char *python, *cuda, *torch, *platform;
	const struct toml_value *where;
};

struct matrix_cfg {
	struct strv python;       /* "3.10", "3.13t" */
	struct strv cuda;         /* "13.0" */
	struct strv torch;        /* "2.6"; empty: no torch axis */
	struct strv platform;     /* "linux_x86_64", "win_amd64" */
	struct matrix_entry *include;
	size_t n_include;
	struct matrix_entry *exclude;
	size_t n_exclude;
	struct strv build;        /* identifier globs; empty = all */
	struct strv skip;
	const char *local_version; /* template, e.g. "cu{cuda_nodot}" */
	bool abi3_per_python;      /* abi3 kind: also build per-Python wheels */
};

struct test_cfg {
	struct strv requires;
	const char *command;      /* shell command run from a temp dir; {project} is replaced */
	struct strv find_links;
	bool torch_from_index;    /* torch = "index": pip resolves torch in the test venv; else
	                           * ("build") the venv sees the torch the cell was built with */
};

struct cache_cfg {
	enum tristate ccache;
	const char *remote;       /* redis://... or http://... */
	const char *dir;          /* ccache dir; NULL: ccache's default */
};

struct audit_cfg {
	const char *min_manylinux; /* e.g. "manylinux_2_28"; NULL: any */
	bool strict;               /* warnings fail the cell */
};

struct config {
	const char *project_dir;   /* absolute */
	const char *pyproject;     /* absolute path of pyproject.toml */
	struct source src;
	const struct toml_value *root;
	struct project_meta project;
	struct kernels_cfg kernels;
	struct extension_cfg *extensions;
	size_t n_extensions;
	struct strv packages;      /* project-relative dirs of pure-Python packages to ship */
	struct matrix_cfg matrix;
	struct test_cfg test;
	struct str_pairs toolkits; /* version -> path */
	struct str_pairs pythons;  /* version -> path */
	struct cache_cfg cache;
	struct audit_cfg audit;
	const char *build_dir;     /* absolute */
	const char *dist_dir;      /* absolute */
	int compression;           /* 0 = stored, 1..9 deflate level */
};

/* Loads project_dir/pyproject.toml. env is a NULL-terminated environ-style list (CUWHEEL_*
 * overrides) or NULL. Returns false after reporting every error found. */
bool config_load(struct arena *a, struct diag *d, const char *project_dir,
		 const char *const *env, struct config *cfg);
/* Parses a TORCH_CUDA_ARCH_LIST string (';' ',' or space separated, names like Ampere).
 * Returns false with a message in *err (arena string). */
bool config_parse_archs(struct arena *a, const char *text, struct arch **out, size_t *n,
			const char **err);
/* Returns the name of an extension kind ("capi") / cudart kind / tristate. */
const char *ext_kind_name(enum ext_kind k);
const char *cudart_kind_name(enum cudart_kind k);
const char *tristate_name(enum tristate t);

#endif
