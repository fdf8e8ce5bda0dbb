/* test_pkginfo.c: PKG-INFO read as verbatim headers; METADATA written from it keeps every
 * header byte for byte but Version, adds the cell's requirement, and takes the groups a
 * [project] key overrides from the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "standards/metadata.h"
#include "standards/pkginfo.h"

static const char gsplat_like[] =
    "Metadata-Version: 2.4\n"
    "Name: gsplat\n"
    "Version: 1.5.3\n"
    "Summary:  Python package for differentiable rasterization of gaussians\n"
    "Home-page: https://github.com/nerfstudio-project/gsplat\n"
    "Keywords: gaussian,splatting,cuda\n"
    "Requires-Python: >=3.7\n"
    "License-File: LICENSE\n"
    "Requires-Dist: torch\n"
    "Requires-Dist: typing_extensions; python_version < \"3.8\"\n"
    "Provides-Extra: dev\n"
    "Requires-Dist: pytest==7.1.2; extra == \"dev\"\n"
    "Description: folded\n"
    "        |second line\n"
    "Dynamic: summary\n";

static void parse(struct arena *a, const char *text, struct pkginfo *pk)
{
	struct diag d = {0};
	struct source src = {.path = "PKG-INFO", .text = text, .len = strlen(text)};
	assert_true(pkginfo_parse(a, &d, &src, pk));
	assert_int_equal(d.errors, 0);
}

static void pkginfo_parses_headers_continuations_and_body(void **state)
{
	(void)state;
	struct arena a = {0};
	struct pkginfo pk;
	char *text = arena_printf(&a, "%s\nThe body.\n\nSecond paragraph.\n", gsplat_like);
	parse(&a, text, &pk);
	assert_int_equal(pk.n, 14);
	assert_string_equal(pkginfo_get(&pk, "summary")->value,
	                    "Python package for differentiable rasterization of gaussians");
	assert_string_equal(pkginfo_get(&pk, "Description")->value, "folded\n        |second line");
	assert_int_equal(pkginfo_get(&pk, "Requires-Python")->line, 7);
	assert_non_null(pk.body);
	assert_memory_equal(pk.body, "The body.\n\nSecond paragraph.\n", pk.body_len);
	arena_free(&a);
}

static void pkginfo_refuses_what_is_not_core_metadata(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int line, col;
		const char *msg;
	} bad[] = {
	    {"Metadata-Version: 2.4\nName: x\nVersion: 1\nnot a header\n", 4, 4,
	     "not a 'Name: value' header line"},
	    {" continued\nName: x\n", 1, 1, "a continuation line before any header"},
	    {"Metadata-Version: 2.4\nVersion: 1\n", 1, 1, "PKG-INFO has no Name header"},
	    {"Name: x\nVersion: 1\n", 1, 1, "PKG-INFO has no Metadata-Version header"},
	    {"Metadata-Version: 2.4\nName: x\n: empty name\n", 3, 1,
	     "not a 'Name: value' header line"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct arena a = {0};
		struct diag d = {0};
		struct source src = {
		    .path = "PKG-INFO", .text = bad[i].text, .len = strlen(bad[i].text)};
		struct pkginfo pk;
		assert_false(pkginfo_parse(&a, &d, &src, &pk));
		assert_int_equal(d.errors, 1);
		arena_free(&a);
	}
	struct arena a = {0};
	struct diag d = {0};
	struct source src = {.path = "PKG-INFO", .text = "Name: a\0b", .len = 9};
	struct pkginfo pk;
	assert_false(pkginfo_parse(&a, &d, &src, &pk));
	arena_free(&a);
}

static void pkginfo_metadata_keeps_every_header_but_version(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct project_meta m = {0};
	m.name = "gsplat";
	m.version = "1.5.3";
	m.pkginfo = arena_printf(&a, "%s\nBody\n", gsplat_like);
	m.pkginfo_len = strlen(m.pkginfo);
	strv_push(&a, &m.dependencies, "torch>=2.11,<2.12"); /* what pack --requires adds */
	size_t len = 0;
	char *t = metadata_render(&a, &d, "cfg.toml", &m, "1.5.3+pt211cu130", &len);
	assert_non_null(t);
	const char *want_start = "Metadata-Version: 2.4\nName: gsplat\nVersion: 1.5.3+pt211cu130\n"
	                         "Summary:  Python package";
	assert_memory_equal(t, want_start, strlen(want_start));
	/* Every other header as written, in its place. */
	assert_non_null(strstr(t, "Keywords: gaussian,splatting,cuda\nRequires-Python: >=3.7\n"
	                          "License-File: LICENSE\nRequires-Dist: torch\n"));
	assert_non_null(strstr(t, "Description: folded\n        |second line\nDynamic: summary\n"));
	assert_non_null(strstr(t, "Requires-Dist: torch>=2.11,<2.12\n\nBody\n"));
	assert_null(strstr(t, "Version: 1.5.3\n"));
	assert_int_equal(len, strlen(t));
	arena_free(&a);
}

static void pkginfo_metadata_takes_overridden_groups_from_the_model(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	struct project_meta m = {0};
	m.name = "gsplat";
	m.version = "1.5.3";
	m.pkginfo = gsplat_like;
	m.pkginfo_len = strlen(gsplat_like);
	m.description = "Rasterization of gaussians";
	strv_push(&a, &m.dependencies, "torch>=2.11");
	strv_push(&a, &m.dependencies, "numpy");
	m.readme_text = "# New readme";
	m.readme_type = "text/markdown";
	m.pkginfo_replaced = PKGINFO_SUMMARY | PKGINFO_DEPS | PKGINFO_README;
	size_t len = 0;
	char *t = metadata_render(&a, &d, "cfg.toml", &m, "1.5.3+cu130", &len);
	assert_non_null(t);
	assert_null(strstr(t, "Python package for differentiable"));
	assert_null(strstr(t, "Requires-Dist: torch\n"));
	assert_null(strstr(t, "Provides-Extra: dev"));
	assert_null(strstr(t, "folded"));
	assert_non_null(strstr(t, "Summary: Rasterization of gaussians\n"));
	assert_non_null(strstr(t, "Requires-Dist: torch>=2.11\nRequires-Dist: numpy\n"));
	assert_non_null(strstr(t, "Home-page: https://github.com/nerfstudio-project/gsplat\n"));
	assert_non_null(strstr(t, "Description-Content-Type: text/markdown\n\n# New readme"));
	assert_int_equal(pkginfo_group_of("requires-dist"), PKGINFO_DEPS);
	assert_int_equal(pkginfo_group_of("Home-page"), 0);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pkginfo_parses_headers_continuations_and_body),
	    cmocka_unit_test(pkginfo_refuses_what_is_not_core_metadata),
	    cmocka_unit_test(pkginfo_metadata_keeps_every_header_but_version),
	    cmocka_unit_test(pkginfo_metadata_takes_overridden_groups_from_the_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
