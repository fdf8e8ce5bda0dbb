/* test_metadata.c: METADATA 2.4 rendering of every PEP 621 field, WHEEL, entry_points.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "standards/metadata.h"

static struct str_pair pairs_urls[] = {{"Homepage", "https://example.com"},
                                       {"Bug Tracker", "https://example.com/issues"}};
static struct person people_authors[] = {{"Ann Dev", "ann@example.com"},
                                         {"Bob Only", NULL},
                                         {NULL, "team@example.com"},
                                         {"Carol", NULL},
                                         {"J. R. \"Bob\" Dobbs", "bob@example.com"}};
static struct person people_maint[] = {{"Mia", "mia@example.com"}};

static void full_meta(struct arena *a, struct project_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->name = "Demo_Pkg";
	m->version = "1.2.0";
	m->description = "A demo";
	m->readme_text = "# Demo\n\nBody";
	m->readme_type = "text/markdown";
	m->requires_python = ">=3.10";
	m->license_expression = "MIT OR Apache-2.0";
	strv_push(a, &m->license_files, "LICENSE");
	strv_push(a, &m->license_files, "licenses/NOTICE.txt");
	m->authors = people_authors;
	m->n_authors = 5;
	m->maintainers = people_maint;
	m->n_maintainers = 1;
	strv_push(a, &m->keywords, "cuda");
	strv_push(a, &m->keywords, "wheel");
	strv_push(a, &m->classifiers, "Programming Language :: Python :: 3");
	m->urls.v = pairs_urls;
	m->urls.n = 2;
	strv_push(a, &m->dependencies, "numpy>=1.24; python_version < \"3.13\"");
	strv_push(a, &m->dependencies, "packaging");
	m->extras = arena_calloc(a, 2, sizeof(*m->extras));
	m->n_extras = 2;
	m->extras[0].name = "test";
	strv_push(a, &m->extras[0].deps, "pytest>=7");
	strv_push(a, &m->extras[0].deps, "hypothesis ; sys_platform == 'linux' ");
	m->extras[1].name = "url";
	strv_push(a, &m->extras[1].deps,
	          "pip @ https://example.com/p.whl?a=1;b=2 ; os_name == 'posix'");
}

static const char golden[] =
    "Metadata-Version: 2.4\n"
    "Name: Demo_Pkg\n"
    "Version: 1.2.0+cu130\n"
    "Summary: A demo\n"
    "Keywords: cuda,wheel\n"
    "Author: Bob Only, Carol\n"
    "Author-email: Ann Dev <ann@example.com>, team@example.com, \"J. R. \\\"Bob\\\" Dobbs\" "
    "<bob@example.com>\n"
    "Maintainer-email: Mia <mia@example.com>\n"
    "License-Expression: MIT OR Apache-2.0\n"
    "License-File: LICENSE\n"
    "License-File: licenses/NOTICE.txt\n"
    "Classifier: Programming Language :: Python :: 3\n"
    "Project-URL: Homepage, https://example.com\n"
    "Project-URL: Bug Tracker, https://example.com/issues\n"
    "Requires-Python: >=3.10\n"
    "Requires-Dist: numpy>=1.24; python_version < \"3.13\"\n"
    "Requires-Dist: packaging\n"
    "Provides-Extra: test\n"
    "Requires-Dist: pytest>=7; extra == \"test\"\n"
    "Requires-Dist: hypothesis; (sys_platform == 'linux') and extra == \"test\"\n"
    "Provides-Extra: url\n"
    "Requires-Dist: pip @ https://example.com/p.whl?a=1;b=2 ; (os_name == 'posix') and "
    "extra == \"url\"\n"
    "Description-Content-Type: text/markdown\n"
    "\n"
    "# Demo\n"
    "\n"
    "Body\n";

static void metadata_renders_every_field(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct project_meta m;
	full_meta(&a, &m);
	size_t len;
	char *t = metadata_render(&a, &d, "pyproject.toml", &m, "1.2.0+cu130", &len);
	assert_non_null(t);
	assert_string_equal(t, golden);
	assert_int_equal(len, strlen(golden));
	arena_free(&a);
}

static void metadata_minimal_and_legacy_license(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct project_meta m = {0};
	m.name = "x";
	m.license_text = "Line one\nLine two\n";
	size_t len;
	char *t = metadata_render(&a, &d, "p", &m, "1.0", &len);
	assert_string_equal(t, "Metadata-Version: 2.4\nName: x\nVersion: 1.0\n"
	                       "License: Line one\n       Line two\n");
	arena_free(&a);
}

static void metadata_refuses_what_cannot_be_written(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct project_meta m = {0};
	m.name = "x";
	m.license_text = "MIT";
	m.license_expression = "MIT";
	size_t len;
	assert_null(metadata_render(&a, &d, "p", &m, "1.0", &len));
	assert_int_equal(d.errors, 1);
	m.license_text = NULL;
	m.description = "two\nlines";
	assert_null(metadata_render(&a, &d, "p", &m, "1.0", &len));
	assert_int_equal(d.errors, 2);
	arena_free(&a);
}

static void wheel_file_and_retag(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct wheel_tag tags[] = {{"cp312", "cp312", "linux_x86_64"}};
	char *w = metadata_wheel_render(&a, "cuwheel 0.1.0", false, "3", tags, 1);
	assert_string_equal(w, "Wheel-Version: 1.0\nGenerator: cuwheel 0.1.0\n"
	                       "Root-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\nBuild: 3\n");
	struct wheel_tag nt[] = {{"cp312", "cp312", "manylinux_2_17_x86_64"},
	                         {"cp312", "cp312", "manylinux_2_28_x86_64"}};
	size_t len;
	char *r = metadata_wheel_retag(&a, &d, "WHEEL", w, strlen(w), NULL, nt, 2, &len);
	assert_string_equal(r, "Wheel-Version: 1.0\nGenerator: cuwheel 0.1.0\n"
	                       "Root-Is-Purelib: false\nTag: cp312-cp312-manylinux_2_17_x86_64\n"
	                       "Tag: cp312-cp312-manylinux_2_28_x86_64\n");
	assert_null(metadata_wheel_retag(&a, &d, "WHEEL", "Foo: 1\n", 7, NULL, nt, 2, &len));
	assert_int_equal(d.errors, 1);
	arena_free(&a);
}

static void version_header_is_replaced_in_headers_only(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	const char *md = "Metadata-Version: 2.4\nName: x\nVersion: 1.0\n\nVersion: body stays\n";
	size_t len;
	char *t = metadata_set_version(&a, &d, "METADATA", md, strlen(md), "1.0+cu130", &len);
	assert_string_equal(t, "Metadata-Version: 2.4\nName: x\nVersion: 1.0+cu130\n\n"
	                       "Version: body stays\n");
	assert_string_equal(metadata_header(&a, t, len, "version"), "1.0+cu130");
	assert_null(metadata_header(&a, t, len, "Summary"));
	const char *nov = "Name: x\n\nVersion: 1\n";
	assert_null(metadata_set_version(&a, &d, "M", nov, strlen(nov), "2", &len));
	arena_free(&a);
}

static void entry_points_groups_in_order(void **state)
{
	(void)state;
	struct arena a = {0};
	struct project_meta m = {0};
	assert_null(metadata_entry_points_render(&a, &m));
	struct str_pair s[] = {{"demo", "demo.cli:main"}};
	struct str_pair g[] = {{"demo-gui", "demo.cli:gui"}};
	struct str_pair p[] = {{"a", "demo:a"}, {"b", "demo:b"}};
	struct entry_group eg = {"demo.plugins", {p, 2}};
	m.scripts = (struct str_pairs){s, 1};
	m.gui_scripts = (struct str_pairs){g, 1};
	m.entry_points = &eg;
	m.n_entry_points = 1;
	assert_string_equal(metadata_entry_points_render(&a, &m),
	                    "[console_scripts]\ndemo = demo.cli:main\n\n[gui_scripts]\n"
	                    "demo-gui = demo.cli:gui\n\n[demo.plugins]\na = demo:a\nb = demo:b\n");
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(metadata_renders_every_field),
	    cmocka_unit_test(metadata_minimal_and_legacy_license),
	    cmocka_unit_test(metadata_refuses_what_cannot_be_written),
	    cmocka_unit_test(wheel_file_and_retag),
	    cmocka_unit_test(version_header_is_replaced_in_headers_only),
	    cmocka_unit_test(entry_points_groups_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
