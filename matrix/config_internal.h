/* config_internal.h: what the config loader's files share with each other (not public). */
#ifndef CUWHEEL_MATRIX_CONFIG_INTERNAL_H
#define CUWHEEL_MATRIX_CONFIG_INTERNAL_H

#include <stdlib.h>
#include <strings.h>

#include "matrix/config.h"
#include "matrix/config_read.h"

/* Reads [project] into cfg->project. */
bool config_read_project(struct cfg_reader *r, struct config *cfg);
/* Reads the package metadata: [project], or with --config the project's PKG-INFO overridden
 * by the config's [project] keys (config_pkginfo.c). */
bool config_read_metadata(struct cfg_reader *r, struct config *cfg);
/* Ships LICEN[CS]E*, COPYING*, NOTICE*, AUTHORS* when no licence file is named. */
bool config_default_license_files(struct cfg_reader *r, struct config *cfg);
/* packages = "find": the project's top-level directories holding __init__.py, as setuptools'
 * find_packages() finds them (each shipped with its subpackages and data). */
bool config_find_packages(struct cfg_reader *r, struct config *cfg, const struct toml_value *at);
/* Reads [tool.cuwheel] (defaults for what is absent). */
bool config_read_tool(struct cfg_reader *r, struct config *cfg);
/* Applies CUWHEEL_* overrides from env. */
bool config_apply_env(struct cfg_reader *r, struct config *cfg, const char *const *env);
/* Checks rules that span several tables (after env overrides). */
bool config_check(struct cfg_reader *r, struct config *cfg);
/* True when a project-relative path stays inside the project (no absolute, no '..' escape). */
bool config_path_inside(const char *rel);
/* True when path exists (symlinks followed) and is not a regular file: reading it could block
 * forever (a FIFO) or never end (a character device), so it is refused before it is opened. */
bool config_is_special_file(const char *path);
/* True when s is a syntactically valid SPDX license expression. */
bool config_spdx_valid(const char *s);
/* Expands a project-relative glob (with ** for any depth) to sorted regular files; an error at
 * `at` when it escapes the project or matches nothing. */
bool config_glob(struct cfg_reader *r, struct config *cfg, const struct toml_value *at,
                 const char *pattern, struct strv *out);

#endif
