/* test_diag_keep.c: the keeping sink (base/diag.h): messages kept in order with their
 * counts, copied (a source on the reporter's stack outlives it), passed on to another sink,
 * which counts them as its own; nothing passed, nothing shown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"

/* A sink that records what it was handed, as text. */
struct seen {
	char text[512];
	int n;
};

static void record(void *user, const struct diag_msg *m)
{
	struct seen *s = user;
	size_t len = strlen(s->text);
	snprintf(s->text + len, sizeof(s->text) - len, "[%d %s %d:%d %s|%s]", (int)m->level,
	         m->path ? m->path : "-", m->line, m->col, m->text,
	         m->src && m->src->text ? m->src->text : "-");
	s->n++;
}

/* Reports one message with a source that lives only in this frame. */
static void report_with_stack_source(struct diag *d)
{
	char text[] = "key = 1\n";
	struct source src = {"stack.toml", text, strlen(text)};
	diag_at(d, DIAG_WARNING, &src, 1, 7, "unknown key %s", "key");
	memset(text, 'x', sizeof(text) - 1);
}

static void kept_messages_pass_on_in_order(void **state)
{
	struct arena a = {0};
	struct diag d, to;
	struct diag_kept k;
	diag_keep(&d, &k, &a);
	diag_msg(&d, DIAG_NOTE, "first %d", 1);
	report_with_stack_source(&d);
	diag_path(&d, DIAG_ERROR, "/p/cmd", "failed");
	assert_int_equal(d.errors, 1);
	assert_int_equal(d.warnings, 1);

	struct seen s = {{0}, 0};
	to = (struct diag){.emit = record, .user = &s};
	diag_pass(&k, &to);
	assert_int_equal(s.n, 3);
	assert_int_equal(to.errors, 1);
	assert_int_equal(to.warnings, 1);
	assert_string_equal(s.text, "[2 - 0:0 first 1|-]"
	                            "[1 stack.toml 1:7 unknown key key|key = 1\n]"
	                            "[0 /p/cmd 0:0 failed|-]");
	arena_free(&a);
}

static void nothing_kept_nothing_passed(void **state)
{
	struct arena a = {0};
	struct diag d;
	struct diag_kept k;
	diag_keep(&d, &k, &a);
	struct seen s = {{0}, 0};
	struct diag to = {.emit = record, .user = &s};
	diag_pass(&k, &to);
	assert_int_equal(s.n, 0);
	assert_int_equal(to.errors + to.warnings, 0);
	/* A counting-only sink counts what is passed to it. */
	diag_msg(&d, DIAG_WARNING, "w");
	struct diag count = {0};
	diag_pass(&k, &count);
	assert_int_equal(count.warnings, 1);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(kept_messages_pass_on_in_order),
	    cmocka_unit_test(nothing_kept_nothing_passed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
