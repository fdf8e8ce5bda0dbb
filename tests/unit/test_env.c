/* test_env.c: the environment seam (base/env.h): unset and empty variables, a name that is a
 * prefix of another, a value holding '=', the first of two entries, and a NULL environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/env.h"

static const char *const ENV[] = {"NAMEX=prefix trap", "EMPTY=", "NAME=a=b=c", "HOME=/h",
                                  "HOME=/second",      "NOEQ",   NULL};

static void value_is_what_follows_the_first_equals(void **state)
{
	assert_string_equal(env_value(ENV, "NAME"), "a=b=c");
	assert_string_equal(env_nonempty(ENV, "NAME"), "a=b=c");
	assert_string_equal(env_value(ENV, "NAMEX"), "prefix trap");
}

static void a_prefix_of_a_name_is_not_that_name(void **state)
{
	assert_null(env_value(ENV, "NAM"));
	assert_null(env_value(ENV, "NAMEXY"));
	assert_null(env_value(ENV, "NOE"));
	assert_null(env_value(ENV, "NOEQ")); /* an entry without '=' sets nothing */
	static const char *const only_longer[] = {"NAMEX=1", NULL};
	assert_null(env_value(only_longer, "NAME"));
	assert_null(env_nonempty(only_longer, "NAME"));
}

static void unset_and_empty(void **state)
{
	assert_null(env_value(ENV, "UNSET"));
	assert_null(env_nonempty(ENV, "UNSET"));
	assert_string_equal(env_value(ENV, "EMPTY"), "");
	assert_null(env_nonempty(ENV, "EMPTY"));
}

static void the_first_entry_wins(void **state)
{
	assert_string_equal(env_value(ENV, "HOME"), "/h");
}

static void null_and_empty_environments_have_nothing(void **state)
{
	assert_null(env_value(NULL, "HOME"));
	assert_null(env_nonempty(NULL, "HOME"));
	static const char *const none[] = {NULL};
	assert_null(env_value(none, "HOME"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(value_is_what_follows_the_first_equals),
	    cmocka_unit_test(a_prefix_of_a_name_is_not_that_name),
	    cmocka_unit_test(unset_and_empty),
	    cmocka_unit_test(the_first_entry_wins),
	    cmocka_unit_test(null_and_empty_environments_have_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
