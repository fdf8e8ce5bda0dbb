/* test_ninja_log.c: the one .ninja_log reader: the latest entry of every output across runs,
 * the entries of the last run, what one run appended, a missing log, and lines that are not
 * entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/os-file.h"
#include "report/ninja_log.h"

/* Two runs: the second starts where end times fall back (300 after 900). */
static const char LOG[] = "# ninja log v6\n"
                          "0\t500\t1\tkernels/a.o\tdeadbeef\n"
                          "10\t900\t1\tcells/x/lib.so\tdeadbeef\n"
                          "not a line\n"
                          "0\t300\t2\tkernels/a.o\tdeadbeef\n"
                          "5\t400\t2\tcells/y/my dir/w.whl\tdeadbeef\n";

static char *make_dir(struct arena *a, const char *text)
{
	char *dir = arena_strdup(a, "/tmp/cuwheel-ninja-log-XXXXXX");
	assert_non_null(mkdtemp(dir));
	if (text) {
		struct diag d = {0};
		assert_true(
		    os_write_atomic(&d, os_join(a, dir, ".ninja_log"), text, strlen(text), 0644));
	}
	return dir;
}

static void latest_keeps_the_last_entry_of_each_output(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	char *dir = make_dir(&a, LOG);
	struct ninja_log_entry *v;
	size_t n;
	struct ninja_log log;
	assert_true(ninja_log_load(&a, &d, dir, &log));
	n = ninja_log_view(&a, &log, NINJA_LOG_LATEST, &v);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].output, "cells/x/lib.so");
	assert_string_equal(v[1].output, "kernels/a.o");
	assert_int_equal(v[1].end_ms, 300);
	assert_string_equal(v[2].output, "cells/y/my dir/w.whl");
	struct diag q = {0};
	os_rm_rf(&q, dir);
	arena_free(&a);
}

static void last_run_starts_where_end_times_fall_back(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	char *dir = make_dir(&a, LOG);
	struct ninja_log_entry *v;
	size_t n;
	struct ninja_log log;
	assert_true(ninja_log_load(&a, &d, dir, &log));
	n = ninja_log_view(&a, &log, NINJA_LOG_LAST_RUN, &v);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].output, "kernels/a.o");
	assert_int_equal(v[0].start_ms, 0);
	assert_int_equal(v[1].end_ms, 400);
	struct diag q = {0};
	os_rm_rf(&q, dir);
	arena_free(&a);
}

static void missing_log_is_empty(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	char *dir = make_dir(&a, NULL);
	struct ninja_log_entry *v;
	size_t n = 7;
	struct ninja_log log;
	assert_true(ninja_log_load(&a, &d, dir, &log));
	n = ninja_log_view(&a, &log, NINJA_LOG_LATEST, &v);
	assert_int_equal(n, 0);
	struct diag q = {0};
	os_rm_rf(&q, dir);
	arena_free(&a);
}

static void a_run_is_what_it_appended_or_all_of_a_rewritten_log(void **state)
{
	(void)state;
	struct arena a = {0};
	struct diag d = {0};
	char *dir = make_dir(&a, LOG);
	struct ninja_log log;
	assert_true(ninja_log_load(&a, &d, dir, &log));
	struct ninja_log_mark mark = ninja_log_mark(&a, dir);
	assert_int_equal(mark.inode, log.inode);
	/* The log as it stood before the second run: up to its first line. */
	mark.size = (unsigned long long)(strstr(LOG, "0\t300") - LOG);
	struct ninja_log_entry *v;
	assert_int_equal(ninja_log_run(&log, &mark, &v), 2);
	assert_string_equal(v[0].output, "kernels/a.o");
	assert_int_equal(v[1].end_ms, 400);
	/* Nothing appended: no steps ran (a no-op build). */
	mark.size = sizeof(LOG) - 1;
	assert_int_equal(ninja_log_run(&log, &mark, &v), 0);
	/* Another inode: ninja rewrote (recompacted) the log; the run is its last one. */
	mark.inode++;
	assert_int_equal(ninja_log_run(&log, &mark, &v), 2);
	assert_int_equal(v[0].end_ms, 300);
	struct diag q = {0};
	os_rm_rf(&q, dir);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(latest_keeps_the_last_entry_of_each_output),
	    cmocka_unit_test(last_run_starts_where_end_times_fall_back),
	    cmocka_unit_test(missing_log_is_empty),
	    cmocka_unit_test(a_run_is_what_it_appended_or_all_of_a_rewritten_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
