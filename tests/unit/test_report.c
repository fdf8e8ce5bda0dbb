/* test_report.c: one build result, every view. A committed model (tests/golden/report/
 * report.json: archives and cells in every state, a torch cell, an audit with findings whose
 * text needs escaping, two toolkits) reads back to itself byte for byte, and the summary, the
 * HTML page and the Chrome trace rendered from it are the golden files beside it: the views
 * are pure functions of the one model. CUWHEEL_UPDATE_GOLDEN=1 rewrites the golden files (run
 * from the source root, as CTest does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/os-file.h"
#include "report/build_result.h"
#include "report/report.h"

#define GOLDEN "tests/golden/report/"

static char *slurp(struct arena *a, const char *path)
{
	struct diag d = {0};
	struct source s;
	if (!os_read_file(a, &d, path, &s))
		fail_msg("cannot read %s (run from the source root)", path);
	return (char *)s.text;
}

/* Compares text with the golden file name, or rewrites it under CUWHEEL_UPDATE_GOLDEN. */
static void golden(struct arena *a, const char *name, const char *text)
{
	const char *path = arena_printf(a, GOLDEN "%s", name);
	const char *up = getenv("CUWHEEL_UPDATE_GOLDEN");
	if (up && *up) {
		struct diag d = {0};
		assert_true(os_write_atomic(&d, path, text, strlen(text), 0644));
		return;
	}
	const char *want = slurp(a, path);
	if (strcmp(want, text) != 0)
		fail_msg("%s differs from what the model renders (CUWHEEL_UPDATE_GOLDEN=1 rewrites "
		         "it):\n%s",
		         path, text);
}

static void load_model(struct arena *a, struct build_result *m)
{
	json_error_t err;
	json_t *doc = json_load_file(GOLDEN "report.json", 0, &err);
	if (!doc)
		fail_msg("%s: %s", GOLDEN "report.json", err.text);
	struct diag d = {0};
	assert_true(result_from_json(a, &d, GOLDEN "report.json", doc, m));
	json_decref(doc);
}

static void the_model_reads_back_to_its_own_report_json(void **state)
{
	(void)state;
	struct arena a = {0};
	struct build_result m;
	load_model(&a, &m);
	json_t *doc = result_to_json(&m);
	golden(&a, "report.json", report_dump(&a, doc));
	json_decref(doc);
	arena_free(&a);
}

static void summary_html_and_trace_render_from_the_model(void **state)
{
	(void)state;
	struct arena a = {0};
	struct build_result m;
	load_model(&a, &m);
	golden(&a, "summary.txt", report_summary(&a, &m));
	golden(&a, "report.html", report_html(&a, &m));
	json_t *trace = report_trace(&m);
	golden(&a, "report-trace.json", report_dump(&a, trace));
	json_decref(trace);
	arena_free(&a);
}

static void the_views_agree_on_each_cell(void **state)
{
	(void)state;
	struct arena a = {0};
	struct build_result m;
	load_model(&a, &m);
	const char *summary = report_summary(&a, &m), *html = report_html(&a, &m);
	size_t ok, failed, skipped;
	result_count(&m, &ok, &failed, &skipped);
	assert_non_null(strstr(summary, arena_printf(&a, "%zu built, %zu failed, %zu not buildable",
	                                             ok, failed, skipped)));
	assert_non_null(strstr(html, arena_printf(&a, "%zu wheel%s built, %zu failed", ok,
	                                          ok == 1 ? "" : "s", failed)));
	for (size_t i = 0; i < m.n_rows; i++) {
		const struct result_row *w = &m.rows[i];
		if (w->is_archive)
			continue;
		/* Every cell in the HTML's grid, with its result's class; every selected one in the
		 * summary, ok ones with their wheel in both. */
		assert_non_null(strstr(html, arena_printf(&a, "data-row=\"%s\"", w->name)));
		if (w->state != RESULT_NOT_SELECTED)
			assert_non_null(strstr(summary, w->name));
		if (w->state == RESULT_OK) {
			const char *base = strrchr(w->wheel, '/') + 1;
			assert_non_null(strstr(summary, base));
			assert_non_null(strstr(html, base));
		}
	}
	/* Untrusted text (an audit finding's message) is escaped in the page. */
	assert_null(strstr(html, "<script>alert"));
	assert_non_null(strstr(html, "&lt;script&gt;alert"));
	arena_free(&a);
}

static void another_format_is_refused_naming_the_file(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	json_t *doc = json_pack("{s:i, s:[]}", "format", 1, "cells");
	struct build_result m;
	assert_false(result_from_json(&a, &d, "build/report.json", doc, &m));
	assert_true(d.errors > 0);
	json_decref(doc);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_model_reads_back_to_its_own_report_json),
	    cmocka_unit_test(summary_html_and_trace_render_from_the_model),
	    cmocka_unit_test(the_views_agree_on_each_cell),
	    cmocka_unit_test(another_format_is_refused_naming_the_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
