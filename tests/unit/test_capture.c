/* test_capture.c: the recorder's JSON read into the capture model (extensions, flags per
 * compiler, macros, lines, build_ext options, packages, entry points, metadata), a record that
 * is not one refused, the embedded recorder present, and the config writer refusing two
 * extensions whose kernels need other nvcc flags (one kernels table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "init/capture.h"
#include "init/init_config.h"

struct fixture {
	struct arena a;
	struct diag d;
	char last[1024];
};

static void keep_last(void *user, const struct diag_msg *m)
{
	struct fixture *f = user;
	if (m->level == DIAG_ERROR)
		snprintf(f->last, sizeof(f->last), "%s", m->text);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->d.emit = keep_last;
	f->d.user = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	arena_free(&f->a);
	free(f);
	return 0;
}

static const char record[] =
    "{\"format\": 1, \"python\": \"3.12\", \"network\": [], \"error\": null,\n"
    " \"torch\": {\"version\": \"2.11.0+cu130\", \"cuda\": \"13.0\"},\n"
    " \"calls\": [{\"line\": 40, \"lines\": {\"@\": 40, \"packages\": 44, \"cmdclass\": 43,\n"
    "   \"name\": 41, \"version\": 42, \"install_requires\": 45, \"entry_points\": 46},\n"
    "  \"build_ext\": {\"class\": \"x.BuildExtension\", \"torch\": true,\n"
    "                \"options\": {\"no_python_abi_suffix\": true, \"use_ninja\": false}},\n"
    "  \"packages\": [\"demo\", \"demo.sub\"], \"package_dir\": {\"\": \"src\"},\n"
    "  \"entry_points\": {\"console_scripts\": [\"demo-run = demo.cli:main\"]},\n"
    "  \"metadata\": {\"name\": \"demo\", \"version\": \"1.2\", \"install_requires\": "
    "[\"torch\", \"numpy>=1\"],\n"
    "               \"extras_require\": {\"dev\": [\"pytest\"]}},\n"
    "  \"extensions\": [{\"name\": \"demo._C\", \"line\": 30,\n"
    "    \"lines\": {\"@\": 30, \"#0\": 31, \"#1\": 32, \"extra_compile_args\": 35},\n"
    "    \"sources\": [\"csrc/k.cu\", \"csrc/b.cpp\"], \"include_dirs\": [\"csrc\"],\n"
    "    \"library_dirs\": [], \"runtime_library_dirs\": [],\n"
    "    \"define_macros\": [[\"WITH_CUDA\", null], [\"N\", \"3\"]], \"undef_macros\": "
    "[\"NDEBUG\"],\n"
    "    \"extra_compile_args\": {\"cxx\": [\"-O2\"], \"nvcc\": [\"-O3\", \"-std=c++17\"]},\n"
    "    \"extra_link_args\": [\"-s\"], \"extra_objects\": [], \"libraries\": [\"m\"],\n"
    "    \"py_limited_api\": false,\n"
    "    \"dropped\": [{\"what\": \"library\", \"value\": \"c10\"}]}]}]}\n";

static void test_record_read_into_the_model(void **state)
{
	struct fixture *f = *state;
	struct capture c;
	assert_true(capture_parse(&f->a, &f->d, "rec.json", record, strlen(record), &c));
	assert_string_equal(c.python, "3.12");
	assert_string_equal(c.torch, "2.11.0+cu130");
	assert_string_equal(c.torch_cuda, "13.0");
	assert_int_equal(c.setup_line, 40);
	assert_true(c.build_ext_torch);
	assert_true(c.no_abi_suffix);
	assert_int_equal(c.use_ninja, 0);
	assert_int_equal(c.line_cmdclass, 43);
	assert_int_equal(c.n_exts, 1);
	const struct cap_ext *x = &c.exts[0];
	assert_string_equal(x->name, "demo._C");
	assert_int_equal(x->sources.n, 2);
	assert_string_equal(x->sources.v[1], "csrc/b.cpp");
	assert_true(x->args_per_compiler);
	assert_string_equal(x->cxx_args.v[0], "-O2");
	assert_int_equal(x->nvcc_args.n, 2);
	assert_string_equal(x->defines.v[0], "WITH_CUDA");
	assert_string_equal(x->defines.v[1], "N=3");
	assert_string_equal(x->undefs.v[0], "NDEBUG");
	assert_string_equal(x->link_args.v[0], "-s");
	assert_string_equal(x->libraries.v[0], "m");
	assert_string_equal(x->dropped.v[0], "library c10");
	assert_int_equal(x->line, 30);
	assert_int_equal(x->line_name, 31);
	assert_int_equal(x->line_sources, 32);
	assert_int_equal(x->line_args, 35);
	assert_int_equal(x->line_include_dirs, 30); /* not written: the call's line */
	assert_int_equal(c.packages.n, 2);
	assert_int_equal(c.package_dir.n, 1);
	assert_string_equal(c.package_dir.v[0].value, "src");
	assert_int_equal(c.n_entry_groups, 1);
	assert_string_equal(c.entry_groups[0].entries.v[0].key, "demo-run");
	assert_string_equal(c.entry_groups[0].entries.v[0].value, "demo.cli:main");
	assert_int_equal(c.install_requires.n, 2);
	assert_int_equal(c.n_extras, 1);
	assert_string_equal(c.extras[0].deps.v[0], "pytest");
}

static void test_a_list_of_compile_args_is_the_cxx_flags(void **state)
{
	struct fixture *f = *state;
	const char *rec =
	    "{\"format\": 1, \"calls\": [{\"extensions\": [{\"name\": \"m\", \"sources\": "
	    "[\"m.c\"], \"extra_compile_args\": {\"*\": [\"-O1\"]}}]}]}";
	struct capture c;
	assert_true(capture_parse(&f->a, &f->d, "rec.json", rec, strlen(rec), &c));
	assert_false(c.exts[0].args_per_compiler);
	assert_string_equal(c.exts[0].cxx_args.v[0], "-O1");
	assert_int_equal(c.exts[0].nvcc_args.n, 0);
	assert_int_equal(c.use_ninja, -1);
}

static void test_not_a_record_is_refused(void **state)
{
	struct fixture *f = *state;
	struct capture c;
	const char *bad[] = {"", "[]", "{\"format\": 2, \"calls\": []}", "{\"format\": 1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		f->last[0] = '\0';
		assert_false(capture_parse(&f->a, &f->d, "rec.json", bad[i], strlen(bad[i]), &c));
		assert_non_null(strstr(f->last, "no readable record"));
	}
}

static void test_the_recorder_is_embedded(void **state)
{
	(void)state;
	assert_true(capture_setup_py_len > 1000);
	assert_int_equal(capture_setup_py[capture_setup_py_len], 0);
	assert_non_null(strstr((const char *)capture_setup_py, "def _record(**kw):"));
}

static void test_two_extensions_with_other_nvcc_flags_keep_their_kernels(void **state)
{
	struct fixture *f = *state;
	const char *rec =
	    "{\"format\": 1, \"calls\": [{\"line\": 9, \"extensions\": [\n"
	    " {\"name\": \"p._a\", \"line\": 3, \"sources\": [\"a.cu\"], \"extra_compile_args\": "
	    "{\"nvcc\": [\"-O3\"]}},\n"
	    " {\"name\": \"p._b\", \"line\": 4, \"sources\": [\"b.cu\"], \"extra_compile_args\": "
	    "{\"nvcc\": [\"-O2\"]}}]}]}";
	struct capture c;
	assert_true(capture_parse(&f->a, &f->d, "rec.json", rec, strlen(rec), &c));
	struct init_inputs in = {.cap = &c,
	                         .project_dir = "/nonexistent",
	                         .build_dir = "/tmp",
	                         .cxx = "c++",
	                         .cc = "cc"};
	char *text = NULL;
	/* No torch: each extension keeps its kernel among its own sources, the second with its
	 * own nvcc flags; the kernels table keeps none, with the first one's flags. */
	assert_true(init_config_write(&f->a, &f->d, &in, &text));
	const char *a = strstr(text, "module = \"p._a\"");
	const char *b = strstr(text, "module = \"p._b\"");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(strstr(text, "sources = []"));
	assert_non_null(strstr(text, "nvcc-flags = [\"-O3\"]"));
	assert_true(strstr(a, "sources = [\"a.cu\"]") < b);
	const char *a_nvcc = strstr(a, "nvcc-flags"); /* p._a has none of its own */
	assert_true(!a_nvcc || a_nvcc > b);
	assert_non_null(strstr(b, "sources = [\"b.cu\"]"));
	assert_non_null(strstr(b, "nvcc-flags = [\"-O2\"]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_record_read_into_the_model, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_list_of_compile_args_is_the_cxx_flags, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_not_a_record_is_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_the_recorder_is_embedded, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_two_extensions_with_other_nvcc_flags_keep_their_kernels, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
