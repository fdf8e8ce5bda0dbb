/* test_tags.c: project names, wheel file names and platform tags, checked against packaging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "standards/platform.h"
#include "standards/tags.h"

#define N_OF(arr) (sizeof(arr) / sizeof((arr)[0]))

static int setup_arena(void **state)
{
	*state = calloc(1, sizeof(struct arena));
	return *state ? 0 : -1;
}

static int teardown_arena(void **state)
{
	arena_free(*state);
	free(*state);
	return 0;
}

/* PEP 503's normal form and the wheel escape (packaging.utils.canonicalize_name, with '_'). */
static const struct {
	const char *name, *normal, *escaped;
} names[] = {
    {"Foo_bar.Baz", "foo-bar-baz", "foo_bar_baz"},
    {"friendly-bard", "friendly-bard", "friendly_bard"},
    {"Friendly-Bard", "friendly-bard", "friendly_bard"},
    {"FRIENDLY-BARD", "friendly-bard", "friendly_bard"},
    {"friendly.bard", "friendly-bard", "friendly_bard"},
    {"friendly_bard", "friendly-bard", "friendly_bard"},
    {"friendly--bard", "friendly-bard", "friendly_bard"},
    {"FrIeNdLy-._.-bArD", "friendly-bard", "friendly_bard"},
    {"flash_attn", "flash-attn", "flash_attn"},
    {"nvdiffrast", "nvdiffrast", "nvdiffrast"},
    {"torch-scatter", "torch-scatter", "torch_scatter"},
};

static void test_name_normalize_and_escape(void **state)
{
	for (size_t i = 0; i < N_OF(names); i++) {
		assert_string_equal(name_normalize(*state, names[i].name), names[i].normal);
		assert_string_equal(name_wheel_escape(*state, names[i].name), names[i].escaped);
		assert_true(name_is_valid(names[i].name));
	}
}

static void test_name_is_valid_rejects_bad_names(void **state)
{
	(void)state;
	static const char *const bad[] = {"",        "-foo",    "foo-", "foo.",    "_foo",
	                                  "foo bar", "foo/bar", "föo",  "foo+bar", "foo!"};
	for (size_t i = 0; i < N_OF(bad); i++)
		if (name_is_valid(bad[i]))
			fail_msg("'%s' accepted as a project name", bad[i]);
	assert_true(name_is_valid("a"));
	assert_true(name_is_valid("A1"));
}

static void test_wheel_filename_builds_normalised_sorted_names(void **state)
{
	struct arena *a = *state;
	assert_string_equal(wheel_filename(a, "Flash.Attn", "2.6.3-1", NULL, "cp312", "cp312",
	                                   "manylinux_2_28_x86_64"),
	                    "flash_attn-2.6.3.post1-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_string_equal(
	    wheel_filename(a, "gsplat", "1.4.0+PT26-CU124", "1", "cp313", "cp313t",
	                   "manylinux_2_17_x86_64.manylinux2014_x86_64.manylinux_2_17_x86_64"),
	    "gsplat-1.4.0+pt26.cu124-1-cp313-cp313t-"
	    "manylinux2014_x86_64.manylinux_2_17_x86_64.whl");
	assert_string_equal(
	    wheel_filename(a, "pkg", "1.0", "20240101.1abc", "py3.py2", "none", "any"),
	    "pkg-1.0-20240101.1abc-py2.py3-none-any.whl");
	assert_null(wheel_filename(a, "-bad", "1.0", NULL, "cp312", "cp312", "linux_x86_64"));
	assert_null(wheel_filename(a, "pkg", "1.0 beta", NULL, "cp312", "cp312", "linux_x86_64"));
	assert_null(wheel_filename(a, "pkg", "1.0", "abc", "cp312", "cp312", "linux_x86_64"));
	assert_null(wheel_filename(a, "pkg", "1.0", "1-2", "cp312", "cp312", "linux_x86_64"));
	assert_null(wheel_filename(a, "pkg", "1.0", NULL, "cp312..cp313", "cp312", "any"));
	assert_null(wheel_filename(a, "pkg", "1.0", NULL, "cp312", "", "any"));
	assert_null(wheel_filename(a, "pkg", "1.0", NULL, "cp312", "cp312", "linux-x86_64"));
	assert_null(wheel_filename(a, "pkg", "1.0", NULL, "CP312", "cp312", "any"));
}

static void test_wheel_filename_parse_reads_every_part(void **state)
{
	struct wheel_name w;
	const char *err = NULL;
	assert_true(wheel_filename_parse(
	    *state, "gsplat-1.4.0+pt26.cu124-7abc-cp310.cp311-abi3-manylinux2014_x86_64.whl", &w,
	    &err));
	assert_null(err);
	assert_string_equal(w.distribution, "gsplat");
	assert_string_equal(w.version, "1.4.0+pt26.cu124");
	assert_string_equal(w.build, "7abc");
	assert_string_equal(w.python, "cp310.cp311");
	assert_string_equal(w.abi, "abi3");
	assert_string_equal(w.platform, "manylinux2014_x86_64");
	assert_int_equal(w.n_tags, 2);
	assert_string_equal(w.tags[0].python, "cp310");
	assert_string_equal(w.tags[1].python, "cp311");
	assert_string_equal(w.tags[1].abi, "abi3");
	assert_string_equal(w.tags[1].platform, "manylinux2014_x86_64");

	/* Legacy spellings of the name are read and returned escaped. */
	assert_true(wheel_filename_parse(*state, "Foo.Bar-1.0-py3-none-any.whl", &w, &err));
	assert_string_equal(w.distribution, "foo_bar");
	assert_string_equal(w.distribution_as_written, "Foo.Bar");
	assert_null(w.build);
	assert_int_equal(w.n_tags, 1);
}

static void test_wheel_filename_round_trips(void **state)
{
	static const char *const in[][6] = {
	    {"torch_scatter", "2.1.2+pt26cu124", NULL, "cp312", "cp312", "manylinux_2_28_x86_64"},
	    {"nvdiffrast", "0.3.3", "1", "cp39.cp310", "abi3", "win_amd64"},
	    {"Hunyuan3D-Rasterizer", "1!0.1rc1.post2.dev3", "2b", "cp313", "cp313t",
	     "macosx_11_0_arm64"},
	};
	for (size_t i = 0; i < N_OF(in); i++) {
		char *fn = wheel_filename(*state, in[i][0], in[i][1], in[i][2], in[i][3], in[i][4],
		                          in[i][5]);
		assert_non_null(fn);
		struct wheel_name w;
		const char *err = NULL;
		if (!wheel_filename_parse(*state, fn, &w, &err))
			fail_msg("%s: %s", fn, err);
		assert_string_equal(wheel_filename(*state, w.distribution, w.version, w.build,
		                                   w.python, w.abi, w.platform),
		                    fn);
	}
}

static const struct {
	const char *filename, *why;
} bad_filenames[] = {
    {"pkg-1.0-cp312-cp312-linux_x86_64.zip", "does not end in .whl"},
    {"pkg-1.0-cp312-cp312-linux_x86_64", "does not end in .whl"},
    {"pkg-1.0-cp312-linux_x86_64.whl", "expected {name}"},
    {"pkg-1.0.whl", "expected {name}"},
    {"pkg-1.0-1-2-cp312-cp312-linux_x86_64.whl", "too many"},
    {"pkg-1.0-beta-cp312-cp312-linux_x86_64.whl", "build tag 'beta'"},
    {"pkg-1.0.0-rc1-cp312-cp312-linux_x86_64.whl", "build tag 'rc1'"},
    {"pkg-1.0.post-cp312-cp312-any.whl", "not normalised (write '1.0.post0')"},
    {"pkg-1.0RC1-cp312-cp312-any.whl", "not normalised (write '1.0rc1')"},
    {"pkg-v1.0-cp312-cp312-any.whl", "not normalised"},
    {"pkg-1.0+CU124-cp312-cp312-any.whl", "not normalised (write '1.0+cu124')"},
    {"pkg-one-cp312-cp312-any.whl", "invalid version 'one'"},
    {"pkg--1.0-cp312-cp312-any.whl", "invalid version ''"},
    {"-1.0-cp312-cp312-any.whl", "not a valid project name"},
    {"my__pkg-1.0-cp312-cp312-any.whl", "contains '__'"},
    {"p+kg-1.0-cp312-cp312-any.whl", "not a valid project name"},
    {"pkg-1.0-cp312-cp312-Linux_X86_64.whl", "invalid platform tag"},
    {"pkg-1.0-cp312..cp313-cp312-any.whl", "invalid python tag"},
    {"pkg-1.0-cp312--any.whl", "invalid abi tag"},
    {"dist/pkg-1.0-cp312-cp312-any.whl", "base name"},
};

static void test_wheel_filename_parse_rejects_bad_names(void **state)
{
	for (size_t i = 0; i < N_OF(bad_filenames); i++) {
		struct wheel_name w;
		const char *err = NULL;
		if (wheel_filename_parse(*state, bad_filenames[i].filename, &w, &err))
			fail_msg("'%s' accepted", bad_filenames[i].filename);
		if (!err || !strstr(err, bad_filenames[i].why))
			fail_msg("'%s': message '%s' lacks '%s'", bad_filenames[i].filename,
			         err ? err : "(none)", bad_filenames[i].why);
	}
}

static void test_tags_expand_every_combination_sorted(void **state)
{
	struct wheel_tag *t;
	size_t n = wheel_tags_expand(*state, "py3.py2", "none", "win_amd64.any", &t);
	assert_int_equal(n, 4);
	const char *want[][3] = {
	    {"py2", "none", "any"},
	    {"py2", "none", "win_amd64"},
	    {"py3", "none", "any"},
	    {"py3", "none", "win_amd64"},
	};
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(t[i].python, want[i][0]);
		assert_string_equal(t[i].abi, want[i][1]);
		assert_string_equal(t[i].platform, want[i][2]);
	}
	n = wheel_tags_expand(*state, "cp312", "cp312.cp312", "manylinux_2_17_x86_64", &t);
	assert_int_equal(n, 1); /* duplicates collapse */
	assert_int_equal(wheel_tags_expand(*state, "cp312", "cp312", "", &t), 0);
	assert_null(t);
	assert_int_equal(wheel_tags_expand(*state, "cp312.", "cp312", "any", &t), 0);
}

static void test_manylinux_tags_and_legacy_aliases(void **state)
{
	struct arena *a = *state;
	assert_string_equal(tag_manylinux(a, 2, 28, "x86_64"), "manylinux_2_28_x86_64");
	assert_string_equal(tag_manylinux(a, 2, 17, "aarch64"), "manylinux_2_17_aarch64");
	assert_null(tag_manylinux(a, 2, 17, "x86-64"));
	assert_string_equal(tag_musllinux(a, 1, 2, "x86_64"), "musllinux_1_2_x86_64");

	static const struct {
		const char *tag;
		int major, minor;
		const char *arch;
	} ok[] = {
	    {"manylinux1_x86_64", 2, 5, "x86_64"},
	    {"manylinux1_i686", 2, 5, "i686"},
	    {"manylinux2010_x86_64", 2, 12, "x86_64"},
	    {"manylinux2014_aarch64", 2, 17, "aarch64"},
	    {"manylinux2014_ppc64le", 2, 17, "ppc64le"},
	    {"manylinux_2_28_x86_64", 2, 28, "x86_64"},
	    {"manylinux_2_5_i686", 2, 5, "i686"},
	    {"manylinux_3_0_armv7l", 3, 0, "armv7l"},
	};
	for (size_t i = 0; i < N_OF(ok); i++) {
		int major = -1, minor = -1;
		const char *arch = NULL;
		if (!tag_manylinux_parse(a, ok[i].tag, &major, &minor, &arch))
			fail_msg("'%s' rejected", ok[i].tag);
		assert_int_equal(major, ok[i].major);
		assert_int_equal(minor, ok[i].minor);
		assert_string_equal(arch, ok[i].arch);
	}
	static const char *const bad[] = {
	    "linux_x86_64",         "manylinux_2_x86_64",     "manylinux_2__28_x86_64",
	    "manylinux2015_x86_64", "manylinux_02_28_x86_64", "manylinux_2_28_",
	    "musllinux_1_2_x86_64", "manylinux_2_28_X86_64",  "manylinux_-2_28_x86_64",
	};
	for (size_t i = 0; i < N_OF(bad); i++) {
		int major, minor;
		const char *arch;
		if (tag_manylinux_parse(a, bad[i], &major, &minor, &arch))
			fail_msg("'%s' accepted", bad[i]);
	}
}

static void test_python_abi_and_platform_tags(void **state)
{
	struct arena *a = *state;
	assert_string_equal(tag_python(a, 3, 12), "cp312");
	assert_string_equal(tag_python(a, 3, 9), "cp39");
	assert_string_equal(tag_abi(a, 3, 12, false), "cp312");
	assert_string_equal(tag_abi(a, 3, 13, true), "cp313t");
	assert_string_equal(tag_platform_from_sysconfig(a, "linux-x86_64"), "linux_x86_64");
	assert_string_equal(tag_platform_from_sysconfig(a, "linux-aarch64"), "linux_aarch64");
	assert_string_equal(tag_platform_from_sysconfig(a, "win-amd64"), "win_amd64");
	assert_string_equal(tag_platform_from_sysconfig(a, "win32"), "win32");
	assert_string_equal(tag_platform_from_sysconfig(a, "macosx-11.0-arm64"),
	                    "macosx_11_0_arm64");
	assert_string_equal(tag_platform_from_sysconfig(a, "macosx-10.9-universal2"),
	                    "macosx_10_9_universal2");
}

/* Tags read back: Python tags, CPython ABI tags with their flags, the OS and machine of a
 * platform tag, an ELF module's SOABI suffix and a .pyd's suffix tag. */
static void test_tags_read_back(void **state)
{
	struct arena *a = *state;
	struct python_tag py;
	assert_true(tag_python_parse("cp312", &py));
	assert_true(py.kind == 'c' && py.major == 3 && py.minor == 12);
	assert_true(tag_python_parse("py3", &py));
	assert_true(py.kind == 'p' && py.major == 3 && py.minor == -1);
	assert_true(tag_python_parse("py310", &py));
	assert_true(py.kind == 'p' && py.minor == 10);
	static const char *const bad_py[] = {"", "cp", "pp310", "cpx", "cp3100", "cp3+1", "cp31x"};
	for (size_t i = 0; i < N_OF(bad_py); i++)
		assert_false(tag_python_parse(bad_py[i], &py));
	int major, minor;
	const char *flags;
	assert_true(tag_abi_parse("cp312", &major, &minor, &flags));
	assert_true(major == 3 && minor == 12 && !strcmp(flags, ""));
	assert_true(tag_abi_parse("cp313t", &major, &minor, &flags));
	assert_true(minor == 13 && !strcmp(flags, "t"));
	assert_false(tag_abi_parse("abi3", &major, &minor, &flags));
	assert_false(tag_abi_parse("none", &major, &minor, &flags));
	assert_false(tag_abi_parse("cp3", &major, &minor, &flags));
	static const struct {
		const char *plat;
		enum tag_os os;
		const char *arch;
	} plats[] = {
	    {"any", TAG_OS_ANY, NULL},
	    {"win_amd64", TAG_OS_WINDOWS, "amd64"},
	    {"win32", TAG_OS_WINDOWS, "win32"},
	    {"win_arm64", TAG_OS_WINDOWS, "arm64"},
	    {"macosx_11_0_arm64", TAG_OS_MACOS, "arm64"},
	    {"macosx_11_arm64", TAG_OS_MACOS, NULL},
	    {"linux_x86_64", TAG_OS_LINUX, "x86_64"},
	    {"manylinux_2_28_x86_64", TAG_OS_MANYLINUX, "x86_64"},
	    {"manylinux2014_aarch64", TAG_OS_MANYLINUX, "aarch64"},
	    {"musllinux_1_2_x86_64", TAG_OS_MUSLLINUX, "x86_64"},
	    {"winx", TAG_OS_OTHER, NULL},
	    {"freebsd_14_amd64", TAG_OS_OTHER, NULL},
	};
	for (size_t i = 0; i < N_OF(plats); i++) {
		const char *arch = "unset";
		assert_int_equal(tag_platform_os(a, plats[i].plat, &arch), plats[i].os);
		if (plats[i].arch)
			assert_string_equal(arch, plats[i].arch);
		else
			assert_null(arch);
	}
	const char *abi, *rest;
	assert_true(tag_soabi_parse(a, "cpython-312-x86_64-linux-gnu", &abi, &rest));
	assert_string_equal(abi, "cp312");
	assert_string_equal(rest, "x86_64-linux-gnu");
	assert_true(tag_soabi_parse(a, "cpython-313t", &abi, &rest));
	assert_string_equal(abi, "cp313t");
	assert_null(rest);
	assert_false(tag_soabi_parse(a, "abi3", &abi, &rest));
	tag_pyd_suffix_split(a, "cp312-win_amd64", &abi, &rest);
	assert_string_equal(abi, "cp312");
	assert_string_equal(rest, "win_amd64");
	tag_pyd_suffix_split(a, "cp312", &abi, &rest);
	assert_string_equal(abi, "cp312");
	assert_null(rest);
}

/* The one platform table: each entry is what sysconfig's platform becomes as a tag, Windows
 * exactly for the win_ tags, and found by its own name only. */
static void test_platform_table_matches_sysconfig_tags(void **state)
{
	(void)state;
	struct arena a = {0};
	assert_true(platform_count() >= 4);
	for (size_t i = 0; i < platform_count(); i++) {
		const struct platform *p = platform_at(i);
		assert_ptr_equal(platform_find(p->tag), p);
		assert_int_equal(p->windows, platform_is_windows(p->tag));
		const char *sys =
		    arena_printf(&a, "%s-%s", p->windows ? "win" : "linux", p->machine);
		assert_string_equal(tag_platform_from_sysconfig(&a, sys), p->tag);
	}
	assert_null(platform_find("linux_x86"));
	assert_null(platform_find("macosx_11_0_arm64"));
	assert_null(platform_find(""));
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_name_normalize_and_escape),
	    cmocka_unit_test(test_name_is_valid_rejects_bad_names),
	    cmocka_unit_test(test_wheel_filename_builds_normalised_sorted_names),
	    cmocka_unit_test(test_wheel_filename_parse_reads_every_part),
	    cmocka_unit_test(test_wheel_filename_round_trips),
	    cmocka_unit_test(test_wheel_filename_parse_rejects_bad_names),
	    cmocka_unit_test(test_tags_expand_every_combination_sorted),
	    cmocka_unit_test(test_manylinux_tags_and_legacy_aliases),
	    cmocka_unit_test(test_python_abi_and_platform_tags),
	    cmocka_unit_test(test_tags_read_back),
	    cmocka_unit_test(test_platform_table_matches_sysconfig_tags),
	};
	return cmocka_run_group_tests(tests, setup_arena, teardown_arena);
}
