/* config_internal.h: what the config loader's files share with each other (not public). */
#ifndef CUWHEEL_MATRIX_CONFIG_INTERNAL_H
#define CUWHEEL_MATRIX_CONFIG_INTERNAL_H

#include <stdlib.h>
#include <strings.h>

#include "matrix/config.h"
#include "matrix/config_read.h"
#include "standards/ninja.h"

/* The longest local version label: a wheel's file name (255 bytes at most on Linux) also holds
 * the name, the version and three tags. */
enum { CONFIG_LOCAL_MAX = 64 };

/* Reads [project] into cfg->project. */
bool config_read_project(struct cfg_reader *r, struct config *cfg);
/* With --config and no [project] in it: the project's own pyproject.toml's [project] (errors
 * located there). -1 when it has none, 0 after errors, 1 when read. */
int config_read_project_pyproject(struct cfg_reader *r, struct config *cfg);
/* Reads the package metadata: [project], or with --config the project's PKG-INFO overridden
 * by the config's [project] keys (config_pkginfo.c). */
bool config_read_metadata(struct cfg_reader *r, struct config *cfg);
/* Ships LICEN[CS]E*, COPYING*, NOTICE*, AUTHORS* when no licence file is named. */
bool config_default_license_files(struct cfg_reader *r, struct config *cfg);
/* packages = "find": the project's top-level directories holding __init__.py, as setuptools'
 * find_packages() finds them (each shipped with its subpackages and data). */
bool config_find_packages(struct cfg_reader *r, struct config *cfg, const struct toml_value *at);
/* packages = [...]: each entry a normalised project-relative directory (no trailing '/', no '.'
 * or '..', not absolute, no *.data or *.dist-info component, an importable name, two entries
 * never shipping the same name) that exists and can be staged; a located error and a hint for
 * each that is not. */
bool config_read_packages(struct cfg_reader *r, struct config *cfg, const struct toml_value *tool);
/* python-files = {WHEEL-PATH = SOURCE}: single files laid out as setuptools' build_py lays
 * them out (init writes it from setuptools' own answer); each key a normalised relative path
 * whose first component is no .data or .dist-info and lies in no packages entry, each value a
 * regular file of the project; a located error for each that is not. */
bool config_read_python_files(struct cfg_reader *r, struct config *cfg,
                              const struct toml_value *tool);
/* Once build-dir and dist-dir are final: no package directory is inside either or holds
 * either (its files would ship the build's own outputs); a located error for each. */
bool config_check_package_dirs(struct cfg_reader *r, struct config *cfg);
/* The name a packages entry ships under at the wheel's root: its last component ("pkg" for
 * "src/pkg" and for "pkg/"). */
const char *config_package_base(const char *entry);
/* Reads [tool.cuwheel] (defaults for what is absent). */
bool config_read_tool(struct cfg_reader *r, struct config *cfg);
/* True when a project-relative path stays inside the project (no absolute, no '..' escape). */
bool config_path_inside(const char *rel);
/* True when path exists (symlinks followed) and is not a regular file: reading it could block
 * forever (a FIFO) or never end (a character device), so it is refused before it is opened. */
bool config_is_special_file(const char *path);
/* NULL when rel (project-relative), resolved through its symlinks, stays inside root (the
 * resolved project dir; project_dir is where rel is joined), or when it does not exist; else
 * the message "'rel' leads outside the project (to REAL)". */
const char *config_confine(struct arena *a, const char *root, const char *project_dir,
                           const char *rel);
/* NULL when every file under the package directory rel can be staged and named in
 * build.ninja (no line break, control byte or '|' in a name, UTF-8 names, no symlink out of the
 * project, no symlink loop); else the first problem, as a message. */
const char *config_package_problem(struct arena *a, const char *project_dir, const char *rel);
/* The project directory as the user knows it: "demo-1.0.tar.gz!demo-1.0/" for a tree unpacked
 * from an sdist (never the digest-keyed path in the build dir), else its path. */
const char *config_project_shown(struct arena *a, const struct config *cfg);
/* s with line breaks and control bytes escaped (\n, \x01), for a one-line message. */
const char *config_shown(struct arena *a, const char *s);
/* Checks each string of t[key] (a string or an array) against what its route to the compiler
 * can carry; a located error for each refused. */
bool config_check_args(struct cfg_reader *r, const struct toml_value *t, const char *key,
                       enum arg_route route);
/* Refuses, located, each argument of the flag keys of [tool.cuwheel]'s kernels and extension
 * tables that makes a compiler or linker run a program or load code (toolchain/code_flags.h)
 * unless [tool.cuwheel] trusted-flags lists it exactly. */
bool config_check_code_flags(struct cfg_reader *r, const struct toml_value *tool);
/* Checks the names of files[first..] (matched by the glob at `at`) can be compiled: no line
 * break, control byte or '"'; a located error for each that cannot. */
bool config_check_files(struct cfg_reader *r, const struct toml_value *at, const struct strv *files,
                        size_t first);
/* True when s is a syntactically valid SPDX license expression. */
bool config_spdx_valid(const char *s);
/* Expands a project-relative glob (with ** for any depth) to sorted regular files; an error at
 * `at` when it escapes the project or matches nothing. */
bool config_glob(struct cfg_reader *r, struct config *cfg, const struct toml_value *at,
                 const char *pattern, struct strv *out);

#endif
