/* test_version.c: PEP 440 parsing, normalisation, ordering and specifiers, from the spec's
 * examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "standards/version.h"

#define N_OF(arr) (sizeof(arr) / sizeof((arr)[0]))

static int setup_arena(void **state)
{
	*state = calloc(1, sizeof(struct arena));
	return *state ? 0 : -1;
}

static int teardown_arena(void **state)
{
	arena_free(*state);
	free(*state);
	return 0;
}

/* Parses s, failing the test (with the parser's message) when it is rejected. */
static struct pep440 parse_ok(struct arena *a, const char *s)
{
	struct pep440 v;
	const char *err = NULL;
	if (!pep440_parse(a, s, &v, &err))
		fail_msg("'%s' rejected: %s", s, err ? err : "(no message)");
	return v;
}

/* Every spelling PEP 440's "Normalization" section permits, with its normal form. */
static const struct {
	const char *in, *out;
} normal_forms[] = {
    {"1.0", "1.0"},
    {"1.1RC1", "1.1rc1"}, /* case sensitivity */
    {"00", "0"},          /* integer normalisation */
    {"09000", "9000"},
    {"1.0+foo0100", "1.0+foo0100"}, /* alphanumeric local parts keep their zeros */
    {"1.1.a1", "1.1a1"},            /* pre-release separators */
    {"1.1-a1", "1.1a1"},
    {"1.1_a1", "1.1a1"},
    {"1.0a.1", "1.0a1"},
    {"1.1alpha1", "1.1a1"}, /* pre-release spelling */
    {"1.1beta2", "1.1b2"},
    {"1.1c3", "1.1rc3"},
    {"1.1pre4", "1.1rc4"},
    {"1.1preview5", "1.1rc5"},
    {"1.2a", "1.2a0"},          /* implicit pre-release number */
    {"1.2-post2", "1.2.post2"}, /* post release separators */
    {"1.2post2", "1.2.post2"},
    {"1.2.post-2", "1.2.post2"},
    {"1.0-r4", "1.0.post4"}, /* post release spelling */
    {"1.0-rev4", "1.0.post4"},
    {"1.2.post", "1.2.post0"}, /* implicit post release number */
    {"1.0-1", "1.0.post1"},    /* implicit post releases */
    {"1.2-dev2", "1.2.dev2"},  /* development release separators */
    {"1.2dev2", "1.2.dev2"},
    {"1.2.dev", "1.2.dev0"},          /* implicit development release number */
    {"1.0+ubuntu-1", "1.0+ubuntu.1"}, /* local version segments */
    {"1.0+Ubuntu_1.X", "1.0+ubuntu.1.x"},
    {"v1.0", "1.0"}, /* preceding v character */
    {"V1.0", "1.0"},
    {"  1.0\n", "1.0"}, /* leading and trailing whitespace */
    {"\t1.0a1 ", "1.0a1"},
    {"1!1.0", "1!1.0"}, /* epochs */
    {"0!1.0", "1.0"},
    {"01!02.003", "1!2.3"},
    {"1.0RC1.POST2.DEV3+CU130", "1.0rc1.post2.dev3+cu130"},
    {"1.0.0", "1.0.0"}, /* trailing zeros are kept in the text */
    {"2.6.0+cu124", "2.6.0+cu124"},
    {"2.6.0+pt26-cu124", "2.6.0+pt26.cu124"},
    {"1.0+abc.01", "1.0+abc.1"}, /* numeric local parts are numbers, as in packaging */
};

static void test_normalise_every_spelling_the_spec_permits(void **state)
{
	for (size_t i = 0; i < N_OF(normal_forms); i++) {
		struct pep440 v = parse_ok(*state, normal_forms[i].in);
		assert_string_equal(pep440_str(*state, &v), normal_forms[i].out);
	}
}

static void test_parse_fills_every_field(void **state)
{
	struct pep440 v = parse_ok(*state, "2!3.04.5c6-post7_dev8+Pt26-Cu124");
	assert_int_equal(v.epoch, 2);
	assert_int_equal(v.n_release, 3);
	assert_int_equal(v.release[0], 3);
	assert_int_equal(v.release[1], 4);
	assert_int_equal(v.release[2], 5);
	assert_true(v.has_pre);
	assert_string_equal(v.pre_l, "rc");
	assert_int_equal(v.pre_n, 6);
	assert_true(v.has_post);
	assert_int_equal(v.post_n, 7);
	assert_true(v.has_dev);
	assert_int_equal(v.dev_n, 8);
	assert_string_equal(v.local, "pt26.cu124");
	assert_string_equal(pep440_public(*state, &v), "2!3.4.5rc6.post7.dev8");

	v = parse_ok(*state, "1.0");
	assert_false(v.has_pre || v.has_post || v.has_dev);
	assert_null(v.local);
}

static void test_reject_invalid_versions(void **state)
{
	static const char *const bad[] = {
	    "",
	    "french toast",
	    "1.0+",
	    "1.0+_foo",
	    "1.0+foo_",
	    "1.0+foo..1",
	    "1.0-",
	    "1.0_1",
	    "1..0",
	    ".1",
	    "1.0.",
	    "1!",
	    "!1.0",
	    "1.0+a b",
	    "1.0 a1",
	    "1.0-dev-x",
	    "v",
	    "1.0a1a2",
	    "1.0.x",
	    "1.0.post1.post2",
	    "1.0dev1.dev2",
	    "1.0+é",
	    "1.0+foo+bar",
	    "99999999999999999999999.0", /* larger than unsigned long */
	};
	for (size_t i = 0; i < N_OF(bad); i++) {
		struct pep440 v;
		const char *err = NULL;
		if (pep440_parse(*state, bad[i], &v, &err))
			fail_msg("'%s' accepted as %s", bad[i], pep440_str(*state, &v));
		assert_non_null(err);
		assert_non_null(strstr(err, "invalid version"));
	}
}

/* PEP 440's "Summary of permitted suffixes and relative ordering", extended with epochs and
 * the local version rules; each entry sorts strictly after the one before it. */
static const char *const spec_order[] = {
    "1.dev0",
    "1.0.dev456",
    "1.0a1",
    "1.0a2.dev456",
    "1.0a12.dev456",
    "1.0a12",
    "1.0b1.dev456",
    "1.0b2",
    "1.0b2.post345.dev456",
    "1.0b2.post345",
    "1.0rc1.dev456",
    "1.0rc1",
    "1.0",
    "1.0+abc.5",
    "1.0+abc.7",
    "1.0+5",
    "1.0.post456.dev34",
    "1.0.post456",
    "1.0.15",
    "1.1.dev1",
    "2013.10",
    "2014.4",
    "1!1.0",
    "1!1.1",
    "2!0.1",
};

static int cmp_parsed(const void *x, const void *y)
{
	return pep440_cmp(x, y);
}

static void test_spec_ordering_list_sorts_identically(void **state)
{
	size_t n = N_OF(spec_order);
	struct pep440 v[N_OF(spec_order)];
	/* Parse in a scrambled order (reversed, odd positions first) so the sort has work. */
	size_t k = 0;
	for (size_t i = n; i-- > 0;)
		if (i % 2)
			v[k++] = parse_ok(*state, spec_order[i]);
	for (size_t i = n; i-- > 0;)
		if (!(i % 2))
			v[k++] = parse_ok(*state, spec_order[i]);
	qsort(v, n, sizeof(v[0]), cmp_parsed);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(pep440_str(*state, &v[i]), spec_order[i]);
	/* And the order is total: every earlier entry is less than every later one. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int c = pep440_cmp(&v[i], &v[j]);
			if ((i < j && c >= 0) || (i > j && c <= 0) || (i == j && c != 0))
				fail_msg("cmp(%s, %s) = %d", spec_order[i], spec_order[j], c);
		}
}

static const struct {
	const char *x, *y;
	int want;
} comparisons[] = {
    {"1.0", "1.0.0", 0}, /* release segments are padded with zeros */
    {"1.0", "1", 0},
    {"v1.0", "1.0.0.0", 0},
    {"1.0.post0", "1.0-0", 0},
    {"1.0a", "1.0alpha0", 0},
    {"1.0+CU124", "1.0+cu124", 0},
    {"1.0+abc.01", "1.0+abc.1", 0},
    {"1.0.1", "1.0.0.1", 1},
    {"1.10", "1.9", 1}, /* numeric, not textual */
    {"0!9", "1!0", -1},
    {"1.0+cu124", "1.0", 1}, /* a local label sorts after the plain version */
    {"1.0+cu124", "1.0.post0", -1},
    {"1.0+cu124", "1.0+cu124.1", -1}, /* a longer label after its prefix */
    {"1.0+cu124", "1.0+cu13", -1},    /* alphanumeric parts compare as text */
    {"1.0+10", "1.0+9", 1},           /* numeric parts as numbers */
    {"1.0+0", "1.0+zzz", 1},          /* numeric parts after alphanumeric ones */
    {"1.0+pt26.1", "1.0+pt26.a", 1},
    {"1.0+99999999999999999999999", "1.0+9", 1}, /* longer than unsigned long */
    {"1.0.dev1", "1.0a0", -1},                   /* a final's dev release before its pre-releases */
    {"1.0a1.post1.dev1", "1.0a1.post1", -1},
    {"1.0a1.post1", "1.0a2.dev0", -1},
    {"1.0rc1", "1.0c1", 0},
};

static void test_compare_pairs(void **state)
{
	for (size_t i = 0; i < N_OF(comparisons); i++) {
		struct pep440 x = parse_ok(*state, comparisons[i].x);
		struct pep440 y = parse_ok(*state, comparisons[i].y);
		int c = pep440_cmp(&x, &y), r = pep440_cmp(&y, &x);
		c = (c > 0) - (c < 0);
		r = (r > 0) - (r < 0);
		if (c != comparisons[i].want || r != -comparisons[i].want)
			fail_msg("cmp(%s, %s) = %d, reversed %d; want %d", comparisons[i].x,
			         comparisons[i].y, c, r, comparisons[i].want);
	}
}

static void test_normalize_local_label(void **state)
{
	const char *err = NULL;
	assert_string_equal(pep440_normalize_local(*state, "CU124", &err), "cu124");
	assert_string_equal(pep440_normalize_local(*state, "pt2.6-cu_124", &err), "pt2.6.cu.124");
	assert_string_equal(pep440_normalize_local(*state, "007", &err), "7");
	assert_null(pep440_normalize_local(*state, "", &err));
	assert_non_null(err);
	err = NULL;
	assert_null(pep440_normalize_local(*state, "cu124-", &err));
	assert_non_null(err);
	err = NULL;
	assert_null(pep440_normalize_local(*state, "-cu124", &err));
	assert_non_null(err);
	err = NULL;
	assert_null(pep440_normalize_local(*state, "cu+124", &err));
	assert_non_null(strstr(err, "cu+124"));
}

static void test_is_canonical(void **state)
{
	assert_true(pep440_is_canonical(*state, "1.0.post1+cu124"));
	assert_false(pep440_is_canonical(*state, "1.0-1"));
	assert_false(pep440_is_canonical(*state, "1.0+CU124"));
	assert_false(pep440_is_canonical(*state, "v1.0"));
	assert_false(pep440_is_canonical(*state, "not a version"));
}

/* Expectations checked against packaging 26.3: SpecifierSet(spec).contains(v, prereleases=True). */
static const struct {
	const char *version, *spec;
	bool want;
} matches[] = {
    /* Compatible release, PEP 440's own expansions. */
    {"2.2", "~= 2.2", true},
    {"2.9.1", "~=2.2", true},
    {"3.0", "~=2.2", false},
    {"2.1", "~=2.2", false},
    {"1.4.5", "~=1.4.5", true},
    {"1.4.9", "~=1.4.5", true},
    {"1.5.0", "~=1.4.5", false},
    {"2.2.post3", "~=2.2.post3", true},
    {"2.2.post2", "~=2.2.post3", false},
    {"2.3", "~=2.2.post3", true},
    {"1.4.5a4", "~=1.4.5a4", true},
    {"1.4.5", "~=1.4.5a4", true},
    {"1.5", "~=1.4.5a4", false},
    {"2.2.0", "~=2.2.0", true},
    {"2.3.0", "~=2.2.0", false},
    {"1!2.3", "~=1!2.2", true},
    {"2.3", "~=1!2.2", false},
    /* Version matching: 1.1.post1 from the spec. */
    {"1.1.post1", "== 1.1", false},
    {"1.1.post1", "== 1.1.post1", true},
    {"1.1.post1", "== 1.1.*", true},
    {"1.1a1", "==1.1.*", true},
    {"1.1", "==1.1.0.0", true},
    {"1.1", "==1.1.0.*", true},
    {"1.10", "==1.1.*", false},
    {"1.1", "!=1.1.*", false},
    {"1.2", "!=1.1.*", true},
    {"1!1.1", "==1.1.*", false},
    {"3.12.1", "==3.*", true},
    /* Local versions: a spec without a label ignores the candidate's. */
    {"2.6.0+cu124", "==2.6.0", true},
    {"2.6.0+cu124", "==2.6", true},
    {"2.6.0+cu124", "==2.6.0+cu124", true},
    {"2.6.0+cu124", "==2.6.0+CU124", true},
    {"2.6.0+cu124", "==2.6.0+cu121", false},
    {"2.6.0", "==2.6.0+cu124", false},
    {"2.6.0+cu124", "!=2.6.0", false},
    {"2.6.0+cu124", "!=2.6.0+cu121", true},
    {"2.6.0+cu124", "==2.*", true},
    {"2.6.0+cu124", ">=2.6", true},
    {"2.6.0+cu124", "<=2.6.0", true},
    {"2.6.0+cu124", ">2.6.0", false},
    {"2.6.1+cu124", ">2.6.0", true},
    /* Exclusive ordered comparisons. */
    {"1.7.1", ">1.7", true},
    {"1.7.0.post1", ">1.7", false},
    {"1.7.0.post3", ">1.7.post2", true},
    {"1.7.0", ">1.7.post2", false},
    {"1.7.1", ">1.7.post2", true},
    {"3.1.dev0", "<3.1", false},
    {"3.1rc1", "<3.1", false},
    {"3.0.9", "<3.1", true},
    {"3.1a1", "<3.1rc1", true},
    {"3.1rc1", "<3.1rc1", false},
    {"1.0rc1", ">1.0a1", true},
    {"1.0.dev0", "<1.0.post0", true},
    /* Inclusive comparisons and sets. */
    {"3.10", ">=3.10,<3.14", true},
    {"3.13.9", ">=3.10,<3.14", true},
    {"3.14", ">=3.10,<3.14", false},
    {"3.9", ">=3.10,<3.14", false},
    {"3.14.0rc1", ">=3.10,<3.14", false},
    {"3.13.0rc1", ">=3.10,<3.14", true},
    {"3.12", " >= 3.10 , != 3.11.* ,", true},
    {"3.11.4", ">=3.10, !=3.11.*", false},
    {"1.0", "", true},
    {"1.0", ">=v1.0", true},
    /* Arbitrary equality compares the normalised text. */
    {"1.0", "===1.0", true},
    {"1.0", "===1.0.0", false},
    {"1.0+CU124", "===1.0+cu124", true},
};

static void test_satisfies_specifier_sets(void **state)
{
	for (size_t i = 0; i < N_OF(matches); i++) {
		struct pep440 v = parse_ok(*state, matches[i].version);
		const char *err = "unset";
		bool got = pep440_satisfies(*state, &v, matches[i].spec, &err);
		if (got != matches[i].want || err != NULL)
			fail_msg("'%s' against '%s': got %d (%s), want %d", matches[i].version,
			         matches[i].spec, got, err ? err : "no error", matches[i].want);
	}
}

static void test_dotted_versions_order_numerically(void **state)
{
	(void)state;
	assert_true(version_dotted_cmp("13.0.88", "12.9.1") > 0);
	assert_true(version_dotted_cmp("12.9.1", "12.9") > 0);
	assert_int_equal(version_dotted_cmp("12.9", "12.9.0"), 0);
	assert_true(version_dotted_cmp("13.10", "13.9") > 0);
	assert_true(version_dotted_cmp("3.9", "3.13") < 0);
	long p[3];
	assert_int_equal(version_dotted_parts("13.1.80", p, 3), 3);
	assert_int_equal(p[2], 80);
	assert_int_equal(version_dotted_parts("13.1.80.1", p, 3), 0);
	assert_int_equal(version_dotted_parts("13.x", p, 3), 0);
}

static void test_reject_malformed_specifiers(void **state)
{
	static const char *const bad[] = {
	    "~=1",      "~=1.0+cu124", ">=1.0+cu124", "==1.0a1.*",    "==1.*.*",     ">=1.*",
	    "=>1.0",    "1.0",         "==",          "==1.0 .*",     "==1.0.*+abc", "<1 0",
	    "===1.0 x", "~=1.0.*",     ">=3.10,<",    ">=3.10;<3.14",
	};
	struct pep440 v = parse_ok(*state, "1.0");
	for (size_t i = 0; i < N_OF(bad); i++) {
		const char *err = NULL;
		if (pep440_satisfies(*state, &v, bad[i], &err) || !err)
			fail_msg("'%s' was not reported as malformed", bad[i]);
		assert_non_null(strstr(err, "invalid version specifier"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalise_every_spelling_the_spec_permits),
	    cmocka_unit_test(test_parse_fills_every_field),
	    cmocka_unit_test(test_reject_invalid_versions),
	    cmocka_unit_test(test_spec_ordering_list_sorts_identically),
	    cmocka_unit_test(test_compare_pairs),
	    cmocka_unit_test(test_normalize_local_label),
	    cmocka_unit_test(test_is_canonical),
	    cmocka_unit_test(test_satisfies_specifier_sets),
	    cmocka_unit_test(test_reject_malformed_specifiers),
	    cmocka_unit_test(test_dotted_versions_order_numerically),
	};
	return cmocka_run_group_tests(tests, setup_arena, teardown_arena);
}
