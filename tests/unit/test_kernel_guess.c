/* test_kernel_guess.c: a kernel's torch and Python includes guessed from its text
 * (torch/kernel_guess.h), the answer `cuwheel build` starts the kernels' compiles on before the
 * scans end: the branches nvcc does not take (__CUDACC__, #if 0) are left out, the project's
 * headers are followed ("..." beside the file, <...> in the include dirs), torch's and
 * Python's are named and not read, comments are no directives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/arena.h"
#include "base/os-file.h"
#include "torch/kernel_guess.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	struct arena a = {0};
	struct diag d = {0};
	const char *path = os_join(&a, root, rel);
	const char *slash = strrchr(path, '/');
	assert_true(os_mkdir_p(&d, arena_strndup(&a, path, (size_t)(slash - path))));
	assert_true(os_write_atomic(&d, path, text, strlen(text), 0644));
	arena_free(&a);
}

static struct kernel_guess guess(struct arena *a, const char *rel, bool cu)
{
	struct strv dirs = {0};
	strv_push(a, &dirs, os_join(a, root, "inc"));
	struct kernel_guess g;
	kernel_guess(a, os_join(a, root, rel), cu, &dirs, &g);
	return g;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/cuwheel-guess-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	struct diag d = {0};
	return os_rm_rf(&d, root) ? 0 : -1;
}

/* nvcc defines __CUDACC__: a torch include behind #ifndef __CUDACC__ is not nvcc's, one
 * behind #ifdef is; a .cpp kernel (c++) sees the opposite. */
static void test_cudacc_branches(void **state)
{
	(void)state;
	struct arena a = {0};
	put("k/guarded.cu", "#ifndef __CUDACC__\n#include <torch/extension.h>\n#endif\n"
	                    "__global__ void k() {}\n");
	struct kernel_guess g = guess(&a, "k/guarded.cu", true);
	assert_null(g.torch);
	assert_null(g.python);
	g = guess(&a, "k/guarded.cu", false);
	assert_string_equal(g.torch, "torch/extension.h");
	assert_string_equal(g.python, "Python.h");
	put("k/else.cu", "#if !defined( __CUDACC__ )\n#include <Python.h>\n#else\n"
	                 "#include <ATen/ATen.h>\n#endif\n");
	g = guess(&a, "k/else.cu", true);
	assert_string_equal(g.torch, "ATen/ATen.h");
	assert_null(g.python);
	put("k/zero.cu", "#if 0\n#include <torch/torch.h>\n#elif defined(__CUDACC__)\n"
	                 "#include <c10/macros/Macros.h>\n#else\n#include <Python.h>\n#endif\n");
	g = guess(&a, "k/zero.cu", true);
	assert_string_equal(g.torch, "c10/macros/Macros.h");
	assert_null(g.python);
	arena_free(&a);
}

/* Any other condition may be taken: its includes count, in every branch. */
static void test_unknown_condition(void **state)
{
	(void)state;
	struct arena a = {0};
	put("k/unknown.cu", "#ifdef WITH_TORCH\n#include <torch/python.h>\n#else\n#include <x.h>\n"
	                    "#endif\n#if 1\n#else\n#include <pybind11/pybind11.h>\n#endif\n");
	struct kernel_guess g = guess(&a, "k/unknown.cu", true);
	assert_string_equal(g.torch, "torch/python.h");
	assert_string_equal(g.python, "Python.h");
	arena_free(&a);
}

/* The project's headers are read: "..." beside the includer first, <...> in the include
 * dirs; a header included twice is read once. */
static void test_project_headers(void **state)
{
	(void)state;
	struct arena a = {0};
	put("k/main.cu", "#include \"local.h\"\n#include <shared.h>\n#include \"local.h\"\n");
	put("k/local.h", "#pragma once\n#include \"sub/deep.h\"\n");
	put("k/sub/deep.h", "#pragma once\n");
	put("inc/shared.h", "#pragma once\n  #  include   <ATen/core/Tensor.h>\n");
	struct kernel_guess g = guess(&a, "k/main.cu", true);
	assert_string_equal(g.torch, "ATen/core/Tensor.h");
	assert_null(g.python);
	put("k/plain.cu", "#include \"sub/deep.h\"\n#include <cuda_runtime.h>\n#include MACRO\n");
	g = guess(&a, "k/plain.cu", true);
	assert_null(g.torch);
	assert_null(g.python);
	arena_free(&a);
}

/* A commented-out include is none, in line and block comments, a block across lines too. */
static void test_comments(void **state)
{
	(void)state;
	struct arena a = {0};
	put("k/comments.cu", "// #include <torch/extension.h>\n/* #include <Python.h>\n"
	                     "#include <ATen/ATen.h> */\nint x; /* a */ #include <nothing.h>\n");
	struct kernel_guess g = guess(&a, "k/comments.cu", true);
	assert_null(g.torch);
	assert_null(g.python);
	arena_free(&a);
}

/* An unreadable source guesses nothing; headers that include each other end. */
static void test_missing_and_cycles(void **state)
{
	(void)state;
	struct arena a = {0};
	struct kernel_guess g = guess(&a, "k/absent.cu", true);
	assert_null(g.torch);
	put("k/a.h", "#include \"b.h\"\n");
	put("k/b.h", "#include \"a.h\"\n#include <torch/all.h>\n");
	put("k/cycle.cu", "#include \"a.h\"\n");
	g = guess(&a, "k/cycle.cu", true);
	assert_string_equal(g.torch, "torch/all.h");
	assert_null(g.python);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cudacc_branches),    cmocka_unit_test(test_unknown_condition),
	    cmocka_unit_test(test_project_headers),    cmocka_unit_test(test_comments),
	    cmocka_unit_test(test_missing_and_cycles),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
