/* test_config.c: the config model: arch lists, defaults, CUWHEEL_* overrides, ** globs, path
 * escapes, SPDX syntax, and every [project] field of a full manifest mapped into project_meta. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/os-file.h"
#include "matrix/config_internal.h"

/* Per-test state: an arena, a diagnostic sink that keeps the last error text, a temp dir. */
struct fixture {
	struct arena a;
	struct diag d;
	char last[1024];
	char dir[64];
};

static void keep_last(void *user, const struct diag_msg *m)
{
	struct fixture *f = user;
	if (m->level == DIAG_ERROR || m->level == DIAG_WARNING)
		snprintf(f->last, sizeof(f->last), "%s", m->text);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->d.emit = keep_last;
	f->d.user = f;
	snprintf(f->dir, sizeof(f->dir), "/tmp/cuwheel-test-config-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct diag quiet = {0};
	os_rm_rf(&quiet, f->dir);
	arena_free(&f->a);
	free(f);
	return 0;
}

/* Writes text to dir/rel, creating parent directories. */
static void put(struct fixture *f, const char *rel, const char *text)
{
	char *path = os_join(&f->a, f->dir, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	assert_true(os_mkdir_p(&f->d, path));
	*slash = '/';
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* The smallest manifest config_load accepts, plus extra lines for [tool.cuwheel.matrix]. */
static void put_minimal(struct fixture *f, const char *matrix_extra)
{
	put(f, "src/ext.c", "int x;\n");
	put(f, "pkg/__init__.py", "");
	put(f, "pyproject.toml",
	    arena_printf(&f->a,
	                 "[project]\nname = \"demo\"\nversion = \"1.0\"\n\n"
	                 "[tool.cuwheel]\npackages = [\"pkg\"]\n\n"
	                 "[tool.cuwheel.extension]\nmodule = \"pkg._C\"\n"
	                 "sources = [\"src/ext.c\"]\n\n[tool.cuwheel.matrix]\n%s",
	                 matrix_extra));
}

static void expect_arch(const struct arch *ar, int major, int minor, char suffix, bool ptx)
{
	assert_int_equal(ar->major, major);
	assert_int_equal(ar->minor, minor);
	assert_int_equal(ar->suffix, suffix);
	assert_int_equal(ar->ptx, ptx);
}

static void test_archs_named_lists_expand_like_torch(void **state)
{
	struct fixture *f = *state;
	struct arch *v;
	size_t n;
	const char *err = NULL;
	assert_true(cuda_arch_parse_list(&f->a, "Ampere", ARCH_SPELL_TORCH, &v, &n, &err));
	assert_int_equal(n, 2);
	expect_arch(&v[0], 8, 0, '\0', false);
	expect_arch(&v[1], 8, 6, '\0', true);
	assert_true(cuda_arch_parse_list(&f->a, "Turing;Hopper", ARCH_SPELL_TORCH, &v, &n, &err));
	assert_int_equal(n, 2);
	expect_arch(&v[0], 7, 5, '\0', true);
	expect_arch(&v[1], 9, 0, '\0', true);
}

static void test_archs_separators_suffixes_and_ptx(void **state)
{
	struct fixture *f = *state;
	struct arch *v;
	size_t n;
	const char *err = NULL;
	assert_true(cuda_arch_parse_list(&f->a, " 7.5;8.6, 9.0a  10.0f;12.0+PTX ;",
	                                 ARCH_SPELL_TORCH, &v, &n, &err));
	assert_int_equal(n, 5);
	expect_arch(&v[0], 7, 5, '\0', false);
	expect_arch(&v[1], 8, 6, '\0', false);
	expect_arch(&v[2], 9, 0, 'a', false);
	expect_arch(&v[3], 10, 0, 'f', false);
	expect_arch(&v[4], 12, 0, '\0', true);
	/* lower-case +ptx, and a repeat merges into one entry that keeps PTX */
	assert_true(cuda_arch_parse_list(&f->a, "8.6;8.6+ptx", ARCH_SPELL_TORCH, &v, &n, &err));
	assert_int_equal(n, 1);
	expect_arch(&v[0], 8, 6, '\0', true);
	/* 9.0 and 9.0a are different targets */
	assert_true(cuda_arch_parse_list(&f->a, "9.0;9.0a", ARCH_SPELL_TORCH, &v, &n, &err));
	assert_int_equal(n, 2);
}

static void test_archs_errors_say_what_is_wrong(void **state)
{
	struct fixture *f = *state;
	struct arch *v;
	size_t n;
	static const struct {
		const char *in, *msg;
	} bad[] = {
	    {"", "empty"},
	    {" ; , ", "empty"},
	    {"sm_90", "'sm_90' is not an architecture"},
	    {"8", "'8' is not an architecture"},
	    {"8.6+PTXX", "'8.6+PTXX' is not"},
	    {"8.6a", "'a' targets start at 9.0a"},
	    {"9.0f", "'f' targets at 10.0f"},
	    {"8.0;Amper", "did you mean 'Ampere'?"},
	    {"0.5", "'0.5' is not"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *err = NULL;
		if (cuda_arch_parse_list(&f->a, bad[i].in, ARCH_SPELL_TORCH, &v, &n, &err))
			fail_msg("'%s' accepted", bad[i].in);
		assert_non_null(err);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].in, err, bad[i].msg);
	}
}

static void test_defaults_fill_what_is_absent(void **state)
{
	struct fixture *f = *state;
	put_minimal(f, "cuda = \"13.0\"\n");
	struct config cfg;
	assert_true(config_load(&f->a, &f->d, f->dir, NULL, &cfg));
	assert_int_equal(f->d.errors, 0);
	assert_int_equal(cfg.compression, 6);
	assert_int_equal(cfg.cache.ccache, TRI_AUTO);
	assert_null(cfg.cache.remote);
	assert_int_equal(cfg.kernels.cudart, CUDART_STATIC);
	assert_false(cfg.kernels.rdc);
	assert_int_equal(cfg.kernels.uses_torch, TRI_AUTO);
	assert_string_equal(cfg.kernels.archs_text, "7.5;8.0;8.6;8.9;9.0;10.0;12.0+PTX");
	assert_int_equal(cfg.kernels.n_archs, 7);
	expect_arch(&cfg.kernels.archs[6], 12, 0, '\0', true);
	assert_int_equal(cfg.kernels.files.n, 0);
	assert_string_equal(cfg.build_dir, os_join(&f->a, cfg.project_dir, "build/cuwheel"));
	assert_string_equal(cfg.dist_dir, os_join(&f->a, cfg.project_dir, "dist"));
	assert_int_equal(cfg.matrix.platform.n, 1);
	assert_string_equal(cfg.matrix.platform.v[0], "linux_x86_64");
	assert_int_equal(cfg.matrix.python.n, 0);
	assert_int_equal(cfg.matrix.cuda.n, 1);
	assert_null(cfg.matrix.local_version);
	assert_false(cfg.matrix.abi3_per_python);
	assert_int_equal(cfg.n_extensions, 1);
	assert_string_equal(cfg.extensions[0].module, "pkg._C");
	assert_int_equal(cfg.extensions[0].kind, EXT_CAPI);
	assert_int_equal(cfg.extensions[0].files.n, 1);
	assert_string_equal(cfg.extensions[0].files.v[0], "src/ext.c");
	assert_false(cfg.audit.strict);
	assert_null(cfg.audit.min_manylinux);
	assert_null(cfg.test.command);
}

static void test_env_overrides_replace_the_file(void **state)
{
	struct fixture *f = *state;
	put_minimal(f, "python = [\"3.12\"]\ncuda = \"13.0\"\n");
	const char *env[] = {
	    "PATH=/usr/bin",
	    "CUWHEEL_ARCHS=8.6;9.0a",
	    "CUWHEEL_CUDART=shared",
	    "CUWHEEL_COMPRESSION=0",
	    "CUWHEEL_MATRIX_PYTHON=3.11, 3.13t",
	    "CUWHEEL_MATRIX_CUDA=12.4 13.0",
	    "CUWHEEL_MATRIX_PLATFORM=linux_x86_64,win_amd64",
	    "CUWHEEL_SKIP=*-win_amd64",
	    "CUWHEEL_BUILD=cp311-*",
	    "CUWHEEL_CCACHE=off",
	    "CUWHEEL_CACHE_REMOTE=redis://cache:6379",
	    "CUWHEEL_LOCAL_VERSION=cu{cuda_major}",
	    "CUWHEEL_DIST_DIR=/tmp/wheels",
	    "CUWHEEL_TEST_COMMAND=python -c 'import pkg'",
	    "CUWHEEL_TEST_REQUIRES=pytest numpy",
	    "CUWHEEL_MIN_MANYLINUX=manylinux_2_28",
	    "CUWHEEL_CACHE_DIR=/tmp/elsewhere", /* read elsewhere: not an unknown variable */
	    NULL,
	};
	struct config cfg;
	assert_true(config_load(&f->a, &f->d, f->dir, env, &cfg));
	assert_int_equal(f->d.errors + f->d.warnings, 0);
	assert_int_equal(cfg.kernels.n_archs, 2);
	expect_arch(&cfg.kernels.archs[1], 9, 0, 'a', false);
	assert_string_equal(cfg.kernels.archs_text, "8.6;9.0a");
	assert_int_equal(cfg.kernels.cudart, CUDART_SHARED);
	assert_int_equal(cfg.compression, 0);
	assert_int_equal(cfg.matrix.python.n, 2);
	assert_string_equal(cfg.matrix.python.v[0], "3.11");
	assert_string_equal(cfg.matrix.python.v[1], "3.13t");
	assert_int_equal(cfg.matrix.cuda.n, 2);
	assert_string_equal(cfg.matrix.cuda.v[0], "12.4");
	assert_int_equal(cfg.matrix.platform.n, 2);
	assert_string_equal(cfg.matrix.platform.v[1], "win_amd64");
	assert_int_equal(cfg.matrix.skip.n, 1);
	assert_string_equal(cfg.matrix.skip.v[0], "*-win_amd64");
	assert_string_equal(cfg.matrix.build.v[0], "cp311-*");
	assert_int_equal(cfg.cache.ccache, TRI_OFF);
	assert_string_equal(cfg.cache.remote, "redis://cache:6379");
	assert_string_equal(cfg.matrix.local_version, "cu{cuda_major}");
	assert_string_equal(cfg.dist_dir, "/tmp/wheels");
	assert_string_equal(cfg.test.command, "python -c 'import pkg'");
	assert_int_equal(cfg.test.requires.n, 2);
	assert_string_equal(cfg.audit.min_manylinux, "manylinux_2_28");
}

static void test_env_bad_values_and_misspellings_are_reported(void **state)
{
	struct fixture *f = *state;
	put_minimal(f, "cuda = \"13.0\"\n");
	struct config cfg;
	static const struct {
		const char *var, *msg;
	} bad[] = {
	    {"CUWHEEL_ARCHS=8.6;sm_90", "'sm_90' is not an architecture"},
	    {"CUWHEEL_CUDART=dynamic", "must be 'static' or 'shared'"},
	    {"CUWHEEL_COMPRESSION=10", "must be 0 (stored) to 9"},
	    {"CUWHEEL_CCACHE=maybe", "must be auto, on or off"},
	    {"CUWHEEL_MATRIX_PLATFORM=macos", "is not a platform"},
	    {"CUWHEEL_MATRIX_PYTHON=3", "is not a CPython version"},
	    {"CUWHEEL_LOCAL_VERSION=cu{cudaa}", "unknown field '{cudaa}'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *env[] = {bad[i].var, NULL};
		f->d.errors = 0;
		f->last[0] = '\0';
		if (config_load(&f->a, &f->d, f->dir, env, &cfg))
			fail_msg("%s accepted", bad[i].var);
		assert_int_equal(f->d.errors, 1);
		if (!strstr(f->last, bad[i].msg))
			fail_msg("%s: message '%s' lacks '%s'", bad[i].var, f->last, bad[i].msg);
	}
	/* A misspelt variable is a warning, and loading goes on. */
	const char *env[] = {"CUWHEEL_ARCH=8.6", NULL};
	f->d.errors = f->d.warnings = 0;
	assert_true(config_load(&f->a, &f->d, f->dir, env, &cfg));
	assert_int_equal(f->d.warnings, 1);
	assert_non_null(strstr(f->last, "unknown cuwheel environment variable"));
	assert_int_equal(cfg.kernels.n_archs, 7);
	/* What cuwheel's own CI and tests set is no misspelling: tools/test exports
	 * CUWHEEL_CI_NO_SKIP=1 to every test, whose cuwheel runs must stay quiet. */
	const char *ours[] = {"CUWHEEL_CI_NO_SKIP=1", "CUWHEEL_TORCH_PYTHONS=/x", "CUWHEEL=/y",
	                      NULL};
	f->d.errors = f->d.warnings = 0;
	assert_true(config_load(&f->a, &f->d, f->dir, ours, &cfg));
	assert_int_equal(f->d.warnings, 0);
}

static void test_glob_double_star_matches_any_depth_sorted(void **state)
{
	struct fixture *f = *state;
	put(f, "x.cu", "");
	put(f, "a/d.cu", "");
	put(f, "a/b/c.cu", "");
	put(f, "a/b/c.h", "");
	put(f, "a/.hidden/e.cu", "");
	put(f, "a/.f.cu", "");
	struct config cfg = {.project_dir = f->dir};
	struct source src = {"pyproject.toml", "", 0};
	struct cfg_reader r = {&f->a, &f->d, &src, true};
	struct strv out = {0};
	assert_true(config_glob(&r, &cfg, NULL, "**/*.cu", &out));
	assert_int_equal(out.n, 3);
	assert_string_equal(out.v[0], "a/b/c.cu");
	assert_string_equal(out.v[1], "a/d.cu");
	assert_string_equal(out.v[2], "x.cu");
	out.n = 0;
	assert_true(config_glob(&r, &cfg, NULL, "a/**/*.cu", &out));
	assert_int_equal(out.n, 2);
	out.n = 0;
	assert_true(config_glob(&r, &cfg, NULL, "./a/b/c.*", &out));
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0], "a/b/c.cu");
	assert_string_equal(out.v[1], "a/b/c.h");
	out.n = 0;
	assert_true(config_glob(&r, &cfg, NULL, "a/*/c.cu", &out));
	assert_int_equal(out.n, 1);
	/* no match, and escapes, are errors at the value */
	out.n = 0;
	assert_false(config_glob(&r, &cfg, NULL, "**/*.cpp", &out));
	assert_non_null(strstr(f->last, "matches no file"));
	assert_false(config_glob(&r, &cfg, NULL, "../x.cu", &out));
	assert_non_null(strstr(f->last, "reaches outside the project"));
	assert_false(config_glob(&r, &cfg, NULL, "a/../../x.cu", &out));
	assert_false(config_glob(&r, &cfg, NULL, "/etc/passwd", &out));
	assert_false(r.ok);
}

static void test_path_inside_rejects_escapes(void **state)
{
	(void)state;
	assert_true(config_path_inside("a"));
	assert_true(config_path_inside("a/b/../c"));
	assert_true(config_path_inside("./a"));
	assert_true(config_path_inside("a/.."));
	assert_true(config_path_inside("a//b"));
	assert_true(config_path_inside("..a/b"));
	assert_false(config_path_inside(""));
	assert_false(config_path_inside("/abs"));
	assert_false(config_path_inside("\\\\server\\share"));
	assert_false(config_path_inside(".."));
	assert_false(config_path_inside("../x.cu"));
	assert_false(config_path_inside("a/../../x"));
	assert_false(config_path_inside("./../x"));
}

static void test_spdx_expression_syntax(void **state)
{
	(void)state;
	static const char *const good[] = {
	    "MIT",
	    "Apache-2.0 OR MIT",
	    "(MIT AND BSD-3-Clause) OR GPL-2.0+",
	    "GPL-2.0-only WITH Classpath-exception-2.0",
	    "LicenseRef-Proprietary",
	    "((MIT))",
	};
	static const char *const bad[] = {
	    "",     "MIT or Apache-2.0", "MIT AND",    "AND MIT",  "(MIT",
	    "MIT)", "MIT OR OR BSD",     "Apache 2.0", "MIT WITH", "MIT/Apache-2.0",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (!config_spdx_valid(good[i]))
			fail_msg("'%s' rejected", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (config_spdx_valid(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

static const char full_manifest[] =
    "[project]\n"
    "name = \"Tiny_Raster\"\n"
    "version = \"1.2.0.RC1\"\n"
    "description = \"A small CUDA rasteriser\"\n"
    "readme = \"docs/README.rst\"\n"
    "requires-python = \">=3.10\"\n"
    "license = \"MIT OR Apache-2.0\"\n"
    "license-files = [\"LICENSE*\", \"licenses/**/*.txt\"]\n"
    "authors = [{name = \"Ada\", email = \"ada@example.org\"}, {email = \"bob@example.org\"}]\n"
    "maintainers = [{name = \"Cy\"}]\n"
    "keywords = [\"cuda\", \"raster\"]\n"
    "classifiers = [\"Programming Language :: C\", \"Operating System :: POSIX :: Linux\"]\n"
    "dependencies = [\"numpy>=1.24\", \"typing-extensions; python_version < '3.11'\"]\n"
    "\n"
    "[project.optional-dependencies]\n"
    "Test_Extra = [\"pytest\"]\n"
    "docs = [\"sphinx\", \"furo\"]\n"
    "\n"
    "[project.urls]\n"
    "Homepage = \"https://example.org\"\n"
    "Source = \"https://example.org/src\"\n"
    "\n"
    "[project.scripts]\n"
    "tinyraster = \"tinyraster.cli:main\"\n"
    "\n"
    "[project.gui-scripts]\n"
    "tinyraster-view = \"tinyraster.view:main\"\n"
    "\n"
    "[project.entry-points.\"tinyraster.plugins\"]\n"
    "fast = \"tinyraster.fast:plugin\"\n"
    "\n"
    "[tool.cuwheel]\n"
    "packages = [\"python/tinyraster\"]\n"
    "build-dir = \"out\"\n"
    "compression = 9\n"
    "\n"
    "[tool.cuwheel.kernels]\n"
    "sources = [\"kernels/**/*.cu\", \"kernels/*.c\"]\n"
    "include-dirs = [\"kernels\"]\n"
    "defines = [\"TR_FAST=1\"]\n"
    "nvcc-flags = [\"--use_fast_math\"]\n"
    "archs = [\"Turing\", \"8.6\", \"12.0+PTX\"]\n"
    "cudart = \"shared\"\n"
    "\n"
    "[tool.cuwheel.extension]\n"
    "module = \"tinyraster._C\"\n"
    "kind = \"abi3\"\n"
    "sources = [\"bindings/tinyraster.c\"]\n"
    "\n"
    "[tool.cuwheel.matrix]\n"
    "python = [\"3.10\", \"3.12\"]\n"
    "cuda = [\"12.6\", \"13.0\"]\n"
    "platform = [\"linux_x86_64\", \"win_amd64\"]\n"
    "exclude = [{cuda = \"12.6\", platform = \"win_amd64\"}]\n"
    "include = [{python = \"3.13\", cuda = \"13.0\"}]\n"
    "skip = [\"*-win_amd64\"]\n"
    "local-version = \"cu{cuda_major}\"\n"
    "abi3-per-python = true\n"
    "\n"
    "[tool.cuwheel.test]\n"
    "requires = \"pytest\"\n"
    "command = \"pytest {project}/tests\"\n"
    "\n"
    "[tool.cuwheel.toolkits]\n"
    "\"12.6\" = \"/opt/cuda-12.6\"\n"
    "\n"
    "[tool.cuwheel.cache]\n"
    "ccache = true\n"
    "remote = \"http://cache.local/ccache\"\n"
    "\n"
    "[tool.cuwheel.audit]\n"
    "min-manylinux = \"manylinux_2_28\"\n"
    "strict = true\n";

static void test_full_manifest_maps_every_project_field(void **state)
{
	struct fixture *f = *state;
	put(f, "pyproject.toml", full_manifest);
	put(f, "docs/README.rst", "Tiny raster\n===========\n");
	put(f, "LICENSE", "MIT\n");
	put(f, "LICENSE-APACHE", "Apache\n");
	put(f, "licenses/third/zlib.txt", "zlib\n");
	put(f, "kernels/raster.c", "int r;\n");
	put(f, "kernels/sub/raster.cu", "__global__ void k(void) {}\n");
	put(f, "kernels/raster.h", "\n");
	put(f, "bindings/tinyraster.c", "int b;\n");
	put(f, "python/tinyraster/__init__.py", "");
	struct config cfg;
	if (!config_load(&f->a, &f->d, f->dir, NULL, &cfg))
		fail_msg("config_load failed: %s", f->last);
	const struct project_meta *p = &cfg.project;
	assert_string_equal(p->name, "Tiny_Raster");
	assert_string_equal(p->version, "1.2.0rc1");
	assert_null(p->version_local);
	assert_string_equal(p->description, "A small CUDA rasteriser");
	assert_string_equal(p->readme_path, "docs/README.rst");
	assert_string_equal(p->readme_type, "text/x-rst");
	assert_string_equal(p->readme_text, "Tiny raster\n===========\n");
	assert_string_equal(p->requires_python, ">=3.10");
	assert_string_equal(p->license_expression, "MIT OR Apache-2.0");
	assert_null(p->license_text);
	assert_int_equal(p->license_files.n, 3);
	assert_string_equal(p->license_files.v[0], "LICENSE");
	assert_string_equal(p->license_files.v[1], "LICENSE-APACHE");
	assert_string_equal(p->license_files.v[2], "licenses/third/zlib.txt");
	assert_int_equal(p->n_authors, 2);
	assert_string_equal(p->authors[0].name, "Ada");
	assert_string_equal(p->authors[0].email, "ada@example.org");
	assert_null(p->authors[1].name);
	assert_string_equal(p->authors[1].email, "bob@example.org");
	assert_int_equal(p->n_maintainers, 1);
	assert_string_equal(p->maintainers[0].name, "Cy");
	assert_null(p->maintainers[0].email);
	assert_int_equal(p->keywords.n, 2);
	assert_string_equal(p->keywords.v[1], "raster");
	assert_int_equal(p->classifiers.n, 2);
	assert_string_equal(p->classifiers.v[1], "Operating System :: POSIX :: Linux");
	assert_int_equal(p->urls.n, 2);
	assert_string_equal(p->urls.v[0].key, "Homepage");
	assert_string_equal(p->urls.v[1].value, "https://example.org/src");
	assert_int_equal(p->dependencies.n, 2);
	assert_string_equal(p->dependencies.v[1], "typing-extensions; python_version < '3.11'");
	assert_int_equal(p->n_extras, 2);
	assert_string_equal(p->extras[0].name, "test-extra");
	assert_int_equal(p->extras[0].deps.n, 1);
	assert_string_equal(p->extras[1].name, "docs");
	assert_string_equal(p->extras[1].deps.v[1], "furo");
	assert_int_equal(p->scripts.n, 1);
	assert_string_equal(p->scripts.v[0].key, "tinyraster");
	assert_string_equal(p->scripts.v[0].value, "tinyraster.cli:main");
	assert_int_equal(p->gui_scripts.n, 1);
	assert_string_equal(p->gui_scripts.v[0].value, "tinyraster.view:main");
	assert_int_equal(p->n_entry_points, 1);
	assert_string_equal(p->entry_points[0].group, "tinyraster.plugins");
	assert_int_equal(p->entry_points[0].entries.n, 1);
	assert_string_equal(p->entry_points[0].entries.v[0].key, "fast");

	/* [tool.cuwheel] */
	assert_int_equal(cfg.packages.n, 1);
	assert_string_equal(cfg.build_dir, os_join(&f->a, cfg.project_dir, "out"));
	assert_int_equal(cfg.compression, 9);
	assert_int_equal(cfg.kernels.files.n, 2);
	assert_string_equal(cfg.kernels.files.v[0], "kernels/sub/raster.cu");
	assert_string_equal(cfg.kernels.files.v[1], "kernels/raster.c");
	assert_string_equal(cfg.kernels.archs_text, "Turing;8.6;12.0+PTX");
	assert_int_equal(cfg.kernels.n_archs, 3);
	expect_arch(&cfg.kernels.archs[0], 7, 5, '\0', true);
	assert_int_equal(cfg.kernels.cudart, CUDART_SHARED);
	assert_string_equal(cfg.kernels.defines.v[0], "TR_FAST=1");
	assert_string_equal(cfg.kernels.nvcc_flags.v[0], "--use_fast_math");
	assert_int_equal(cfg.extensions[0].kind, EXT_ABI3);
	assert_int_equal(cfg.matrix.n_exclude, 1);
	assert_string_equal(cfg.matrix.exclude[0].platform, "win_amd64");
	assert_null(cfg.matrix.exclude[0].python);
	assert_int_equal(cfg.matrix.n_include, 1);
	assert_string_equal(cfg.matrix.include[0].python, "3.13");
	assert_true(cfg.matrix.abi3_per_python);
	assert_string_equal(cfg.matrix.local_version, "cu{cuda_major}");
	assert_int_equal(cfg.test.requires.n, 1);
	assert_string_equal(cfg.test.command, "pytest {project}/tests");
	assert_int_equal(cfg.toolkits.n, 1);
	assert_string_equal(cfg.toolkits.v[0].key, "12.6");
	assert_int_equal(cfg.cache.ccache, TRI_ON);
	assert_string_equal(cfg.cache.remote, "http://cache.local/ccache");
	assert_string_equal(cfg.audit.min_manylinux, "manylinux_2_28");
	assert_true(cfg.audit.strict);
}

static void test_legacy_license_table_reads_the_file(void **state)
{
	struct fixture *f = *state;
	put_minimal(f, "cuda = \"13.0\"\n");
	put(f, "COPYING", "GPL text\n");
	char *path = os_join(&f->a, f->dir, "pyproject.toml");
	struct source s;
	assert_true(os_read_file(&f->a, &f->d, path, &s));
	/* the minimal manifest with a legacy license table after its version */
	char *text = arena_strdup(&f->a, s.text);
	char *at = strstr(text, "version = \"1.0\"\n") + strlen("version = \"1.0\"\n");
	put(f, "pyproject.toml",
	    arena_printf(&f->a, "%.*slicense = {file = \"COPYING\"}\n%s", (int)(at - text), text,
	                 at));
	struct config cfg;
	if (!config_load(&f->a, &f->d, f->dir, NULL, &cfg))
		fail_msg("config_load failed: %s", f->last);
	assert_null(cfg.project.license_expression);
	assert_string_equal(cfg.project.license_text, "GPL text\n");
	assert_int_equal(cfg.project.license_files.n, 1);
	assert_string_equal(cfg.project.license_files.v[0], "COPYING");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_archs_named_lists_expand_like_torch, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_archs_separators_suffixes_and_ptx, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_archs_errors_say_what_is_wrong, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_defaults_fill_what_is_absent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_overrides_replace_the_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_bad_values_and_misspellings_are_reported,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_glob_double_star_matches_any_depth_sorted, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_path_inside_rejects_escapes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_spdx_expression_syntax, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_full_manifest_maps_every_project_field, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_legacy_license_table_reads_the_file, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
