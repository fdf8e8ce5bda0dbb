/* test_testcmd.c: the test command's placeholders (matrix/testcmd.h): each accepted spelling
 * becomes a quoted variable reference, text without placeholders is kept byte for byte, and
 * every quoting context that would change the path's meaning is refused at the right offset;
 * then sh itself runs the expansion with a hostile path and gets it back as one argument. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "matrix/testcmd.h"

static const char *expand(struct arena *a, const char *cmd)
{
	const char *why;
	size_t at;
	char *out = testcmd_expand(a, cmd, &why, &at);
	assert_non_null(out);
	assert_null(why);
	return out;
}

static void unquoted_placeholders_become_quoted_variables(void **state)
{
	(void)state;
	struct arena a = {0};
	assert_string_equal(expand(&a, "python -m pytest {project}/tests"),
	                    "python -m pytest \"$CUWHEEL_PROJECT\"/tests");
	assert_string_equal(expand(&a, "pip install {wheel} --rootdir={project}"),
	                    "pip install \"$CUWHEEL_WHEEL\" --rootdir=\"$CUWHEEL_PROJECT\"");
	assert_string_equal(expand(&a, "echo $(ls {project})"), "echo $(ls \"$CUWHEEL_PROJECT\")");
	/* Code around the placeholder in quotes is fine when the placeholder is an argument. */
	assert_string_equal(expand(&a, "python -c \"import sys; print(sys.argv[1])\" {project}"),
	                    "python -c \"import sys; print(sys.argv[1])\" \"$CUWHEEL_PROJECT\"");
	/* In a comment nothing runs: substituted or not, it means nothing. */
	assert_string_equal(expand(&a, "true # '{project}'"), "true # '{project}'");
	arena_free(&a);
}

static void text_without_placeholders_is_kept(void **state)
{
	(void)state;
	struct arena a = {0};
	const char *odd = "echo '{proj}' \"unterminated {x} $(( 1 + 2 )) ${Y:-{z}}";
	assert_string_equal(expand(&a, odd), odd);
	arena_free(&a);
}

static void refused(const char *cmd, const char *context, size_t at_want)
{
	struct arena a = {0};
	const char *why;
	size_t at;
	assert_null(testcmd_expand(&a, cmd, &why, &at));
	assert_non_null(why);
	if (!strstr(why, context))
		fail_msg("'%s': '%s' lacks '%s'", cmd, why, context);
	assert_int_equal(at, at_want);
	arena_free(&a);
}

static void quoted_contexts_are_refused_where_the_placeholder_stands(void **state)
{
	(void)state;
	refused("python -c \"print('{project}')\"", "inside \"...\"", 18);
	refused("pytest '{project}/tests'", "inside '...'", 8);
	refused("echo `ls {wheel}`", "inside `...`", 9);
	refused("echo ${X:-{project}}", "inside ${...}", 10);
	refused("echo $(( {project} ))", "inside $((...))", 9);
	refused("echo \\{project}", "after a backslash", 6);
	refused("echo \"$(ls {project})\"", "inside \"...\"", 11);
	refused("cat <<EOF\n{project}\nEOF", "here-document", 10);
	refused("ok {project} then 'bad {wheel}'", "{wheel} stands inside '...'", 23);
}

static void sh_gets_a_hostile_path_as_one_argument(void **state)
{
	(void)state;
	struct arena a = {0};
	const char *path = "/tmp/p $(echo PWNED) `echo PWNED` 'q\" *";
	const char *cmd = expand(&a, "printf '%s|' {project} {project}/x");
	setenv(TESTCMD_PROJECT_VAR, path, 1);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	char buf[512] = {0};
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	assert_int_equal(pclose(f), 0);
	buf[n] = '\0';
	char want[512];
	snprintf(want, sizeof want, "%s|%s/x|", path, path);
	assert_string_equal(buf, want);
	unsetenv(TESTCMD_PROJECT_VAR);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unquoted_placeholders_become_quoted_variables),
	    cmocka_unit_test(text_without_placeholders_is_kept),
	    cmocka_unit_test(quoted_contexts_are_refused_where_the_placeholder_stands),
	    cmocka_unit_test(sh_gets_a_hostile_path_as_one_argument),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
