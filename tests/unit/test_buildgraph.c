/* test_buildgraph.c: escaping for build.ninja, relative paths, and the small pure helpers the
 * build graph is made of. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/path.h"
#include "base/strbuf.h"
#include "graph/buildgraph.h"
#include "matrix/matrix.h"
#include "standards/cuda_arch.h"
#include "standards/ninja.h"
#include "toolchain/toolchain.h"

static char *path_of(void (*fn)(struct strbuf *, const char *), const char *in)
{
	static char out[512];
	struct strbuf sb = {0};
	fn(&sb, in);
	snprintf(out, sizeof(out), "%s", sb_str(&sb));
	sb_release(&sb);
	return out;
}

static void ninja_path_escapes_space_colon_dollar(void **state)
{
	(void)state;
	assert_string_equal(path_of(ninja_path, "a b/c:d$e"), "a$ b/c$:d$$e");
	assert_string_equal(path_of(ninja_path, "plain/path.o"), "plain/path.o");
	assert_string_equal(path_of(ninja_path, "proj é ü/x.cu"), "proj$ é$ ü/x.cu");
}

static void ninja_arg_quotes_for_the_shell_and_escapes_dollar(void **state)
{
	(void)state;
	assert_string_equal(path_of(ninja_arg, "-O3"), "-O3");
	assert_string_equal(path_of(ninja_arg, "a b"), "'a b'");
	assert_string_equal(path_of(ninja_arg, "it's"), "'it'\\''s'");
	assert_string_equal(path_of(ninja_arg, "$HOME"), "'$$HOME'");
	assert_string_equal(path_of(ninja_arg, ""), "''");
	assert_string_equal(path_of(ninja_arg, "-gencode=arch=compute_90,code=[sm_90,compute_90]"),
	                    "'-gencode=arch=compute_90,code=[sm_90,compute_90]'");
}

static void ninja_paths_escapes_each_path_after_a_space(void **state)
{
	(void)state;
	struct arena a = {0};
	struct strv v = {0};
	strv_push(&a, &v, "a b.o");
	strv_push(&a, &v, "c:d.o");
	struct strbuf sb = {0};
	ninja_paths(&sb, &v);
	assert_string_equal(sb_str(&sb), " a$ b.o c$:d.o");
	sb_release(&sb);
	arena_free(&a);
}

static void ninja_path_ok_rejects_newlines(void **state)
{
	(void)state;
	assert_true(ninja_path_ok("/tmp/a b"));
	assert_false(ninja_path_ok("/tmp/a\nb"));
	assert_false(ninja_path_ok("/tmp/a\rb"));
}

static void path_relative_walks_up_and_down(void **state)
{
	(void)state;
	struct arena a = {0};
	assert_string_equal(path_relative(&a, "/p/build/cuwheel", "/p"), "../..");
	assert_string_equal(path_relative(&a, "/p/build/cuwheel", "/p/kernels/x.cu"),
	                    "../../kernels/x.cu");
	assert_string_equal(path_relative(&a, "/p", "/p"), ".");
	assert_string_equal(path_relative(&a, "/p", "/p/a"), "a");
	assert_string_equal(path_relative(&a, "/a/bc", "/a/b"), "../b");
	assert_string_equal(path_relative(&a, "/x/y", "/q/r"), "../../q/r");
	arena_free(&a);
}

/* path_under names a project file from the build dir: absolute paths and "." leave it alone. */
static void path_under_joins_relative_only(void **state)
{
	(void)state;
	struct arena a = {0};
	assert_string_equal(path_under(&a, "..", "csrc/k.cu"), "../csrc/k.cu");
	assert_string_equal(path_under(&a, "../", "csrc"), "../csrc");
	assert_string_equal(path_under(&a, ".", "csrc/k.cu"), "csrc/k.cu");
	assert_string_equal(path_under(&a, "..", "/usr/include"), "/usr/include");
	arena_free(&a);
}

/* path_next yields every component, empty ones included; the callers decide what they allow. */
static void path_next_yields_every_component(void **state)
{
	(void)state;
	static const struct {
		const char *path, *want;
	} cases[] = {
	    {"", ""},           {"a", "a|"},           {"a/", "a|"},
	    {"a//b/", "a||b|"}, {"./../x", ".|..|x|"}, {"/a", "|a|"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[64] = "";
		const char *rest = cases[i].path, *s;
		size_t len;
		while ((s = path_next(&rest, &len)))
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%.*s|", (int)len,
			         s);
		assert_string_equal(got, cases[i].want);
	}
}

static void limited_api_from_the_abi3_baseline(void **state)
{
	(void)state;
	struct arena a = {0};
	assert_string_equal(buildgraph_limited_api(&a, "3.10"), "0x030A0000");
	assert_string_equal(buildgraph_limited_api(&a, "3.9"), "0x03090000");
	assert_string_equal(buildgraph_limited_api(&a, "3.13"), "0x030D0000");
	arena_free(&a);
}

static void local_label_template_fields(void **state)
{
	(void)state;
	struct arena a = {0};
	assert_string_equal(matrix_local_label(&a, "cu{cuda_nodot}", "3.12", "13.0", NULL),
	                    "cu130");
	assert_string_equal(
	    matrix_local_label(&a, "pt{torch_nodot}cu{cuda_nodot}", "3.12", "12.4", "2.6"),
	    "pt26cu124");
	assert_string_equal(
	    matrix_local_label(&a, "cu{cuda_major}.py{python_nodot}", "3.13", "13.1", NULL),
	    "cu13.py313");
	arena_free(&a);
}

static void arch_names_as_nvcc_spells_them(void **state)
{
	(void)state;
	struct arena a = {0};
	struct arch sm90a = {9, 0, 'a', false}, sm120 = {12, 0, '\0', true};
	assert_string_equal(cuda_arch_name(&a, &sm90a, false), "sm_90a");
	assert_string_equal(cuda_arch_name(&a, &sm120, false), "sm_120");
	assert_string_equal(cuda_arch_name(&a, &sm120, true), "compute_120");
	arena_free(&a);
}

/* What the build graph passes to the audit (--require-arch) parses back to the same list. */
static void arch_list_compact_round_trips_through_the_audit_grammar(void **state)
{
	(void)state;
	struct arena a = {0};
	struct arch *v, *w;
	size_t n, m;
	const char *err = NULL;
	assert_true(cuda_arch_parse_list(&a, "7.5;Ampere;9.0a;10.0f;12.0+PTX", ARCH_SPELL_TORCH, &v,
	                                 &n, &err));
	char *compact = cuda_arch_list_compact(&a, v, n);
	assert_string_equal(compact, "75,80,86+PTX,90a,100f,120+PTX");
	assert_true(cuda_arch_parse_list(&a, compact, ARCH_SPELL_NVCC, &w, &m, &err));
	assert_int_equal(m, n);
	assert_memory_equal(v, w, n * sizeof(*v));
	/* The config does not take the compact spelling; the audit does not take names. */
	assert_false(cuda_arch_parse_list(&a, "86", ARCH_SPELL_TORCH, &w, &m, &err));
	assert_false(cuda_arch_parse_list(&a, "Ampere", ARCH_SPELL_NVCC, &w, &m, &err));
	assert_false(cuda_arch_parse_list(&a, "86a", ARCH_SPELL_NVCC, &w, &m, &err));
	assert_non_null(strstr(err, "'a' targets start at 9.0a"));
	arena_free(&a);
}

/* Whether flags (words separated by spaces) name nvcc's C++ standard, or its -O level. */
static bool own_std_of(const char *words, bool opt)
{
	struct arena a = {0};
	struct strv v = {0};
	char *copy = arena_strdup(&a, words);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		strv_push(&a, &v, w);
	bool own = opt ? toolchain_nvcc_own_opt(&v) : toolchain_nvcc_own_std(&v);
	arena_free(&a);
	return own;
}

static void nvcc_own_std_and_opt_in_every_spelling(void **state)
{
	(void)state;
	assert_true(own_std_of("-std=c++20", false));
	assert_true(own_std_of("--expt-relaxed-constexpr --std=c++20", false));
	assert_true(own_std_of("-std c++20", false));
	assert_true(own_std_of("--std c++17", false));
	/* A host compiler's or ptxas's value, a trailing word, other options: not nvcc's. */
	assert_false(own_std_of("-Xcompiler -std=c++20", false));
	assert_false(own_std_of("--compiler-options -std=c++20", false));
	assert_false(own_std_of("-std", false));
	assert_false(own_std_of("-Xcompiler=-std=c++20 -stdlib=libc++", false));
	assert_false(own_std_of("", false));
	assert_true(own_std_of("-O2", true));
	assert_false(own_std_of("-O3 -Xptxas -O1", true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ninja_path_escapes_space_colon_dollar),
	    cmocka_unit_test(ninja_arg_quotes_for_the_shell_and_escapes_dollar),
	    cmocka_unit_test(ninja_paths_escapes_each_path_after_a_space),
	    cmocka_unit_test(ninja_path_ok_rejects_newlines),
	    cmocka_unit_test(path_relative_walks_up_and_down),
	    cmocka_unit_test(path_under_joins_relative_only),
	    cmocka_unit_test(path_next_yields_every_component),
	    cmocka_unit_test(limited_api_from_the_abi3_baseline),
	    cmocka_unit_test(local_label_template_fields),
	    cmocka_unit_test(arch_names_as_nvcc_spells_them),
	    cmocka_unit_test(arch_list_compact_round_trips_through_the_audit_grammar),
	    cmocka_unit_test(nvcc_own_std_and_opt_in_every_spelling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
