/* test_torch_compat.c: torch-compat's pure parts. The proven range is the contiguous minors
 * around the build's own torch that every try passed (a failure, a skip or an untried minor
 * ends it); the first error line names the undefined symbol with paths cut to file names; the
 * METADATA rewrite replaces torch's Requires-Dist and nothing else; compat.json reads back to
 * itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wheeltest/torch_compat.h"
#include "wheeltest/wheeltest.h"
#include "standards/metadata.h"

static const char *range(struct arena *a, const char *own, const char *spec)
{
	/* spec: "2.9=fail 2.10=pass ..." */
	struct compat_row rows[16] = {{0}};
	size_t n = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *t = strtok(buf, " "); t && n < 16; t = strtok(NULL, " ")) {
		char *eq = strchr(t, '=');
		*eq = '\0';
		rows[n].torch = arena_strdup(a, t);
		rows[n].result = arena_strdup(a, eq + 1);
		n++;
	}
	return torch_compat_range(a, own, rows, n);
}

static void test_range(void **state)
{
	(void)state;
	struct arena a = {0};
	/* Nothing passed: the build's own minor only. */
	assert_string_equal(range(&a, "2.11", "2.9=fail 2.10=fail 2.12=fail"), "torch>=2.11,<2.12");
	/* Below and above, contiguous. */
	assert_string_equal(range(&a, "2.11", "2.9=pass 2.10=pass 2.12=pass"), "torch>=2.9,<2.13");
	/* 2.9 passed but 2.10 failed: 2.9 is not joined to the build's minor. */
	assert_string_equal(range(&a, "2.11", "2.9=pass 2.10=fail 2.12=pass"), "torch>=2.11,<2.13");
	/* An untried minor (2.10) is a gap; so is a skip. */
	assert_string_equal(range(&a, "2.11", "2.9=pass 2.12=skip"), "torch>=2.11,<2.12");
	/* One Python failing with a torch makes that torch unproven (abi3: several rows). */
	assert_string_equal(range(&a, "2.11", "2.12=pass 2.12=fail"), "torch>=2.11,<2.12");
	assert_string_equal(range(&a, "2.11", "2.12=pass 2.12=pass 2.13=pass"),
	                    "torch>=2.11,<2.14");
	/* A skip beside a pass of the same torch does not unprove it. */
	assert_string_equal(range(&a, "2.6", "2.5=pass 2.5=skip"), "torch>=2.5,<2.7");
	assert_null(range(&a, "two", "2.5=pass"));
	arena_free(&a);
}

static void test_first_error(void **state)
{
	(void)state;
	struct arena a = {0};
	const char *out =
	    "Traceback (most recent call last):\n"
	    "  File \"<string>\", line 3, in <module>\n"
	    "ImportError: /tmp/cuwheel-test-x/0-3.12-torch2.10/venv/lib/python3.12/site-packages/"
	    "torchext/_C.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda5queryEv\n"
	    "something after\n";
	assert_string_equal(wheeltest_first_error(&a, out),
	                    "ImportError: _C.cpython-312-x86_64-linux-gnu.so: undefined symbol: "
	                    "_ZN3c104cuda5queryEv");
	assert_string_equal(wheeltest_first_error(&a, "x\nE   AssertionError: 1 != 2\n1 failed\n"),
	                    "1 failed");
	assert_string_equal(wheeltest_first_error(&a, "Traceback\nRuntimeError: bad\n\n"),
	                    "RuntimeError: bad");
	assert_null(wheeltest_first_error(&a, NULL));
	assert_null(wheeltest_first_error(&a, "\n  \n"));
	arena_free(&a);
}

static void test_set_requirement(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	const char *md = "Metadata-Version: 2.4\nName: torchext\nVersion: 0.1.0+pt211cu130\n"
	                 "Requires-Dist: torchvision>=0.1\nRequires-Dist: torch>=2.11,<2.12\n"
	                 "Requires-Dist: numpy\n\nRequires-Dist: torch in the body\n";
	size_t n;
	char *out = metadata_set_requirement(&a, &d, "METADATA", md, strlen(md), "torch",
	                                     "torch>=2.10,<2.13", &n);
	assert_non_null(out);
	assert_int_equal(n, strlen(out));
	assert_string_equal(out,
	                    "Metadata-Version: 2.4\nName: torchext\nVersion: 0.1.0+pt211cu130\n"
	                    "Requires-Dist: torchvision>=0.1\nRequires-Dist: torch>=2.10,<2.13\n"
	                    "Requires-Dist: numpy\n\nRequires-Dist: torch in the body\n");
	const char *none = "Name: x\nRequires-Dist: torchvision\n\n";
	d.errors = 0;
	assert_null(metadata_set_requirement(&a, &d, "METADATA", none, strlen(none), "torch",
	                                     "torch>=2.1,<2.2", &n));
	assert_int_equal(d.errors, 1);
	arena_free(&a);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct compat_row rows[] = {
	    {"2.10", "2.10.0+cu128", "3.12", "fail", "import",
	     "ImportError: x: undefined symbol: y", 4.5},
	    {"2.12", "2.12.0+cu130", "3.12", "pass", NULL, NULL, 7.25},
	    {"2.9", NULL, "-", "skip", "no Python 3.12 with torch 2.9 here", NULL, 0},
	};
	struct compat_result r = {"torchext-0.1.0+pt211cu130-cp312-cp312-linux_x86_64.whl", "2.11",
	                          "torch>=2.11,<2.13", rows, 3};
	json_t *j = torch_compat_to_json(&r);
	struct compat_result back;
	assert_true(torch_compat_from_json(&a, &d, "compat.json", j, &back));
	json_t *j2 = torch_compat_to_json(&back);
	assert_true(json_equal(j, j2));
	json_decref(j);
	json_decref(j2);
	json_t *bad = json_pack("{s:i, s:[]}", "format", 2, "rows");
	assert_false(torch_compat_from_json(&a, &d, "compat.json", bad, &back));
	json_decref(bad);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_range),
	    cmocka_unit_test(test_first_error),
	    cmocka_unit_test(test_set_requirement),
	    cmocka_unit_test(test_json_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
