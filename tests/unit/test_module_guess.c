/* test_module_guess.c: where a source defines its Python module, read from its text
 * (torch/module_guess.h), the answer that spares the Python-free proof's preprocessor runs:
 * only a use of PYBIND11_MODULE( that the compiler sees whatever the macros are counts (not
 * in a comment, a literal, a directive or any conditional), and never in a text that defines
 * the macro itself; a file too large or unreadable is not answered. */
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
#include "torch/module_guess.h"

/* One text and its answer: found at line:col, or not (line 0). */
struct guess_case {
	const char *name;
	const char *text;
	size_t line, col;
};

static const struct guess_case cases[] = {
    {"top-level use",
     "#include <torch/extension.h>\n\nint twice(int x) { return 2 * x; }\n\n"
     "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"twice\", &twice); }\n",
     5, 1},
    {"indented use, column in bytes", "namespace {\n}\n\t  PYBIND11_MODULE(_C, m) {}\n", 3, 4},
    {"space and newline before (", "#include <x.h>\nPYBIND11_MODULE \t\n  (_C, m) {}\n", 2, 1},
    {"comment before (", "PYBIND11_MODULE /* the module */ (_C, m) {}\n", 1, 1},
    {"in a // comment", "// PYBIND11_MODULE(_C, m) is below\nint x;\n", 0, 0},
    {"// comment continued by a backslash", "// see \\\nPYBIND11_MODULE(_C, m) {}\n", 0, 0},
    {"in a /* */ spanning lines", "/* the module:\n   PYBIND11_MODULE(_C, m)\n*/\nint x;\n", 0, 0},
    {"after a /* */ spanning lines", "/* one\n * two */\nint x;\nPYBIND11_MODULE(_C, m) {}\n", 4,
     1},
    {"in a string", "const char *s = \"PYBIND11_MODULE(_C, m)\";\n", 0, 0},
    {"in a string with an escaped quote",
     "const char *s = \"\\\" PYBIND11_MODULE(_C, m)\";\nint y;\n", 0, 0},
    {"in a character literal", "int c = 'PYBIND11_MODULE(';\n", 0, 0},
    {"in a raw string", "const char *s = R\"x(\n\" PYBIND11_MODULE(_C, m) )\"\n)x\";\n", 0, 0},
    {"after a raw string", "const char *s = u8R\"(a\nb)\";\nPYBIND11_MODULE(_C, m) {}\n", 3, 1},
    {"a raw string's delimiter that is not one",
     "const char *s = R\"a b(x)a b\";\nPYBIND11_MODULE(_C, m) {}\n", 0, 0},
    {"after digit separators", "int n = 1'000'000;\nPYBIND11_MODULE(_C, m) {}\n", 2, 1},
    {"inside #if 0", "#if 0\nPYBIND11_MODULE(_C, m) {}\n#endif\n", 0, 0},
    {"inside #if 0 with an open apostrophe", "#if 0\ndon't\nPYBIND11_MODULE(_C, m) {}\n#endif\n", 0,
     0},
    {"inside #ifdef _WIN32", "#ifdef _WIN32\nPYBIND11_MODULE(_C, m) {}\n#endif\n", 0, 0},
    {"inside #ifndef SOMETHING",
     "#ifndef SOMETHING_NEVER_DEFINED\nPYBIND11_MODULE(_C, m) {}\n"
     "#endif\n",
     0, 0},
    {"inside an #else", "#if 1\nint x;\n#else\nPYBIND11_MODULE(_C, m) {}\n#endif\n", 0, 0},
    {"inside a nested conditional", "#ifdef A\n#if B\n#endif\nPYBIND11_MODULE(_C, m) {}\n#endif\n",
     0, 0},
    {"after #endif of a conditional",
     "#ifdef _WIN32\n#include <windows.h>\n#endif\nPYBIND11_MODULE(_C, m) {}\n", 4, 1},
    {"after a continued #if",
     "#if defined(A) && \\\n    defined(B)\nint x;\n#endif\n"
     "PYBIND11_MODULE(_C, m) {}\n",
     5, 1},
    {"directive after a comment at line start",
     "/* c */ #if 0\nPYBIND11_MODULE(_C, m) {}\n#endif\n", 0, 0},
    {"# not at a line's start is no directive", "int x; # if 0\nPYBIND11_MODULE(_C, m) {}\n", 2, 1},
    {"in a #define's body", "#define MOD PYBIND11_MODULE(_C, m)\nMOD {}\n", 0, 0},
    {"#define PYBIND11_MODULE present",
     "#define PYBIND11_MODULE(n, m) void init_##n(int m)\nPYBIND11_MODULE(_C, m) {}\n", 0, 0},
    {"#define PYBIND11_MODULE after the use",
     "PYBIND11_MODULE(_C, m) {}\n#ifdef X\n# define PYBIND11_MODULE(n, m)\n#endif\n", 0, 0},
    {"#undef PYBIND11_MODULE", "#undef PYBIND11_MODULE\nPYBIND11_MODULE(_C, m) {}\n", 0, 0},
    {"PYBIND11_MODULE_X( is another identifier", "PYBIND11_MODULE_X(_C, m) {}\n", 0, 0},
    {"xPYBIND11_MODULE( is no token start", "xPYBIND11_MODULE(_C, m) {}\n", 0, 0},
    {"not followed by (", "int PYBIND11_MODULE;\n", 0, 0},
    {"the first of two uses", "PYBIND11_MODULE(_a, m) {}\nPYBIND11_MODULE(_b, m) {}\n", 1, 1},
    {"a use in a conditional, then one outside",
     "#if X\nPYBIND11_MODULE(_a, m) {}\n#endif\n  PYBIND11_MODULE(_b, m) {}\n", 4, 3},
    {"CRLF lines", "#if 0\r\nx\r\n#endif\r\nPYBIND11_MODULE(_C, m) {}\r\n", 4, 1},
    {"empty text", "", 0, 0},
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct guess_case *c = &cases[i];
		struct module_use u = {0};
		bool found = module_guess(c->text, strlen(c->text), &u);
		if (found != (c->line != 0) || (found && (u.line != c->line || u.col != c->col)))
			fail_msg("%s: got %s %zu:%zu, want %zu:%zu", c->name,
			         found ? "found" : "not found", u.line, u.col, c->line, c->col);
	}
}

/* A text that ends inside a comment, a string or a raw string, or right after the name,
 * is read to its end and found to hold no use. */
static void test_unterminated(void **state)
{
	(void)state;
	static const char *const texts[] = {"/* PYBIND11_MODULE(",
	                                    "R\"(PYBIND11_MODULE(",
	                                    "\"PYBIND11_MODULE(",
	                                    "PYBIND11_MODULE",
	                                    "#if",
	                                    "PYBIND11_MODULE \\"};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct module_use u = {0};
		assert_false(module_guess(texts[i], strlen(texts[i]), &u));
	}
	/* Only len bytes are read: the '(' past it is not there. */
	struct module_use u = {0};
	assert_false(module_guess("PYBIND11_MODULE(", strlen("PYBIND11_MODULE"), &u));
	assert_true(module_guess("PYBIND11_MODULE(", strlen("PYBIND11_MODULE("), &u));
}

/* A file is read whole: found at its line; one over MODULE_GUESS_MAX bytes, or one that
 * cannot be read, is not answered (the proof then runs). */
static void test_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/cuwheel-module-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct arena a = {0};
	struct diag d = {0};
	const char *path = os_join(&a, dir, "ops.cpp");
	static const char text[] = "#include <torch/extension.h>\nPYBIND11_MODULE(_C, m) {}\n";
	assert_true(os_write_atomic(&d, path, text, strlen(text), 0644));
	struct module_use u = {0};
	assert_true(module_guess_file(&a, path, &u));
	assert_int_equal(u.line, 2);
	assert_int_equal(u.col, 1);
	size_t big = MODULE_GUESS_MAX + 1;
	char *huge = malloc(big);
	assert_non_null(huge);
	memcpy(huge, text, strlen(text));
	memset(huge + strlen(text), '\n', big - strlen(text));
	assert_true(os_write_atomic(&d, path, huge, big, 0644));
	free(huge);
	assert_false(module_guess_file(&a, path, &u));
	assert_false(module_guess_file(&a, os_join(&a, dir, "missing.cpp"), &u));
	assert_true(os_rm_rf(&d, dir));
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_unterminated),
	    cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
