/* test_python_lock.c: the Python lock (toolchain/pythons.lock.json): what parses, every
 * malformation refused with a message naming the file and the entry, the committed lock, and
 * how a version resolves (minor, exact release, free-threaded, unpinned). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/strbuf.h"
#include "toolchain/provision_python.h"

#define N_OF(arr) (sizeof(arr) / sizeof((arr)[0]))
#define SHA       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Collects every message's text, one a line, prefixed by the path when there is one. */
static void collect(void *user, const struct diag_msg *m)
{
	struct strbuf *sb = user;
	if (m->path)
		sb_printf(sb, "%s: ", m->path);
	sb_printf(sb, "%s\n", m->text);
}

static const char *pkg(struct arena *a, const char *name)
{
	return arena_printf(a,
	                    "{\"name\": \"%s\", \"version\": \"1.0-1\", \"filename\": "
	                    "\"pool/main/x/%s_1.0-1_amd64.deb\", \"sha256\": \"" SHA
	                    "\", \"size\": 1000}",
	                    name, name);
}

/* A lock of one Python (version ver, minor "3.M" from it) with the packages a root needs,
 * and extra JSON spliced in where marked. */
static const char *lock_text(struct arena *a, const char *top, const char *ver,
                             const char *extra_pkg)
{
	char minor[16];
	snprintf(minor, sizeof(minor), "%.*s", (int)(strchr(strchr(ver, '.') + 1, '.') - ver), ver);
	return arena_printf(
	    a,
	    "{\"schema\": 1, \"generated\": \"2026-11-26\", \"uri\": "
	    "\"http://deb.debian.org/debian\", "
	    "\"keyring\": \"/usr/share/keyrings/debian-archive-keyring.gpg\", \"suite\": \"sid\", "
	    "\"components\": \"main\", \"freethreaded\": \"Debian ships none\"%s, "
	    "\"pythons\": [{\"version\": \"%s\", \"minor\": \"%s\", \"packages\": [%s, %s, %s, "
	    "%s%s]}]}",
	    top, ver, minor, pkg(a, arena_printf(a, "python%s-minimal", minor)),
	    pkg(a, arena_printf(a, "libpython%s-dev", minor)), pkg(a, "libc6"),
	    pkg(a, "python3-pip-whl"), extra_pkg);
}

static bool parse(struct arena *a, const char *text, struct strbuf *err, struct python_lock *l)
{
	struct diag d = {.emit = collect, .user = err};
	return python_lock_parse(a, &d, "pythons.lock.json", text, l);
}

static void test_a_good_lock_parses_with_its_origin_and_packages(void **state)
{
	(void)state;
	struct arena a = {0};
	struct strbuf err = {0};
	struct python_lock l;
	assert_true(parse(&a, lock_text(&a, "", "3.14.10", ""), &err, &l));
	assert_int_equal(l.n_sets, 1);
	const struct provision_set *s = &l.sets[0];
	assert_string_equal(s->version, "3.14.10");
	assert_string_equal(s->minor, "3.14");
	assert_int_equal(s->source, PROVISION_DEBIAN);
	assert_string_equal(s->suite, "sid");
	assert_string_equal(s->components, "main");
	assert_string_equal(s->uri, "http://deb.debian.org/debian");
	assert_int_equal(s->n_pkgs, 4);
	assert_string_equal(s->pkgs[2].name, "libc6");
	assert_string_equal(s->pkgs[0].sha256, SHA);
	assert_int_equal(s->pkgs[0].size, 1000);
	assert_string_equal(l.freethreaded, "Debian ships none");
	sb_release(&err);
	arena_free(&a);
}

/* Each malformed lock is refused; the message names the file and says what is wrong. */
static void test_malformed_locks_are_refused_naming_what(void **state)
{
	(void)state;
	struct arena a = {0};
	const struct {
		const char *name, *text, *want;
	} cases[] = {
	    {"not json", "{\"schema\": 1,", "cannot read the Python lock file"},
	    {"schema 2", "{\"schema\": 2}", "not a schema 1 Python lock file"},
	    {"no pythons",
	     "{\"schema\": 1, \"uri\": \"http://x/debian\", \"keyring\": \"/k.gpg\", \"suite\": "
	     "\"sid\", \"components\": \"main\", \"pythons\": []}",
	     "non-empty \"pythons\" array"},
	    {"ftp uri",
	     "{\"schema\": 1, \"uri\": \"ftp://x/debian\", \"keyring\": \"/k.gpg\", \"suite\": "
	     "\"sid\", \"components\": \"main\", \"pythons\": [{}]}",
	     "needs an http(s) \"uri\""},
	    {"relative keyring",
	     "{\"schema\": 1, \"uri\": \"http://x/debian\", \"keyring\": \"k.gpg\", \"suite\": "
	     "\"sid\", \"components\": \"main\", \"pythons\": [{}]}",
	     "an absolute \"keyring\""},
	    {"suite with a line break",
	     "{\"schema\": 1, \"uri\": \"http://x/debian\", \"keyring\": \"/k.gpg\", \"suite\": "
	     "\"sid\\nURIs: http://evil\", \"components\": \"main\", \"pythons\": [{}]}",
	     "a \"suite\""},
	    {"version without patch", NULL, "pythons[0]: needs a \"version\" 3.MINOR.PATCH"},
	    {"python 2", NULL, "pythons[0]: needs a \"version\" 3.MINOR.PATCH"},
	    {"bad sha256", NULL, "pythons[0].packages[4]: needs a Debian package name"},
	    {"pool path up the tree", NULL, "pythons[0].packages[4]"},
	    {"apt option in a name", NULL, "pythons[0].packages[4]"},
	};
	const char *texts[] = {
	    NULL,
	    NULL,
	    NULL,
	    NULL,
	    NULL,
	    NULL,
	    arena_printf(&a,
	                 "{\"schema\": 1, \"uri\": \"http://x/debian\", \"keyring\": \"/k.gpg\", "
	                 "\"suite\": \"sid\", \"components\": \"main\", \"pythons\": "
	                 "[{\"version\": \"3.14\", \"packages\": [%s]}]}",
	                 pkg(&a, "libc6")),
	    arena_printf(&a,
	                 "{\"schema\": 1, \"uri\": \"http://x/debian\", \"keyring\": \"/k.gpg\", "
	                 "\"suite\": \"sid\", \"components\": \"main\", \"pythons\": "
	                 "[{\"version\": \"2.7.18\", \"packages\": [%s]}]}",
	                 pkg(&a, "libc6")),
	    lock_text(&a, "", "3.14.10",
	              ", {\"name\": \"zlib1g\", \"version\": \"1\", \"filename\": \"pool/z.deb\", "
	              "\"sha256\": \"abc\"}"),
	    lock_text(&a, "", "3.14.10",
	              ", {\"name\": \"zlib1g\", \"version\": \"1\", \"filename\": "
	              "\"pool/../../etc/passwd\", \"sha256\": \"" SHA "\"}"),
	    lock_text(&a, "", "3.14.10",
	              ", {\"name\": \"-oDir::Etc=/tmp\", \"version\": \"1\", \"filename\": "
	              "\"pool/z.deb\", \"sha256\": \"" SHA "\"}"),
	};
	for (size_t i = 0; i < N_OF(cases); i++) {
		struct strbuf err = {0};
		struct python_lock l;
		const char *text = cases[i].text ? cases[i].text : texts[i];
		bool ok = parse(&a, text, &err, &l);
		if (ok || !strstr(sb_str(&err), cases[i].want) ||
		    strncmp(sb_str(&err), "pythons.lock.json: ", 19) != 0)
			fail_msg("%s: ok=%d, said: %s (wanted '%s')", cases[i].name, ok,
			         sb_str(&err), cases[i].want);
		sb_release(&err);
	}
	arena_free(&a);
}

static void test_a_root_without_libc_or_pip_or_headers_is_refused(void **state)
{
	(void)state;
	struct arena a = {0};
	const char *drop[] = {"python3.14-minimal", "libpython3.14-dev", "libc6",
	                      "python3-pip-whl"};
	for (size_t i = 0; i < N_OF(drop); i++) {
		/* The same lock with one needed package renamed away. */
		const char *text = lock_text(&a, "", "3.14.10", "");
		struct strbuf t = {0};
		const char *needle = arena_printf(&a, "\"name\": \"%s\"", drop[i]);
		const char *at = strstr(text, needle);
		assert_non_null(at);
		sb_printf(&t, "%.*s\"name\": \"other%zu\"%s", (int)(at - text), text, i,
		          at + strlen(needle));
		struct strbuf err = {0};
		struct python_lock l;
		assert_false(parse(&a, sb_str(&t), &err, &l));
		assert_non_null(strstr(sb_str(&err), arena_printf(&a, "pins no %s", drop[i])));
		sb_release(&t);
		sb_release(&err);
	}
	arena_free(&a);
}

static void test_a_version_pinned_twice_and_a_wrong_minor_are_refused(void **state)
{
	(void)state;
	struct arena a = {0};
	const char *one = lock_text(&a, "", "3.14.10", "");
	/* Duplicate the pythons entry. */
	const char *open = strstr(one, "[{\"version\"");
	struct strbuf t = {0};
	size_t body = strlen(open) - 2; /* without the closing "]}" */
	sb_printf(&t, "%.*s%.*s, %.*s]}", (int)(open - one), one, (int)body, open, (int)body - 1,
	          open + 1);
	struct strbuf err = {0};
	struct python_lock l;
	assert_false(parse(&a, sb_str(&t), &err, &l));
	assert_non_null(strstr(sb_str(&err), "Python 3.14.10 is pinned twice"));
	sb_release(&err);
	sb_release(&t);
	const char *wrong = lock_text(&a, "", "3.14.10", "");
	char *m = strstr(arena_strdup(&a, wrong), "\"minor\": \"3.14\"");
	assert_non_null(m);
	char *copy = arena_strdup(&a, wrong);
	m = strstr(copy, "\"minor\": \"3.14\"");
	memcpy(m, "\"minor\": \"3.15\"", 15);
	assert_false(parse(&a, copy, &err, &l));
	assert_non_null(strstr(sb_str(&err), "a \"minor\" that agrees with it"));
	sb_release(&err);
	arena_free(&a);
}

static void test_versions_resolve_or_say_why_not(void **state)
{
	(void)state;
	struct arena a = {0};
	struct strbuf err = {0};
	struct python_lock l;
	assert_true(parse(&a, lock_text(&a, "", "3.14.10", ""), &err, &l));
	struct diag d = {.emit = collect, .user = &err};
	const struct provision_set *s = python_resolve(&a, &d, &l, "3.14");
	assert_non_null(s);
	assert_string_equal(s->version, "3.14.10");
	assert_ptr_equal(python_resolve(&a, &d, &l, "3.14.10"), s);
	const struct {
		const char *version, *want;
	} refused[] = {
	    {"3.14.9", "cannot provision Python 3.14.9: pythons.lock.json pins Python 3.14 "
	               "(3.14.10) only"},
	    {"3.15", "tools/update-python-lock 3.15"},
	    {"3.14t", "cannot provision Python 3.14t: Debian ships none; pythons.lock.json pins "
	              "only the default build of Python 3.14 (3.14.10)"},
	    {"4.1", "'4.1' is not a Python version"},
	    {"three", "'three' is not a Python version"},
	};
	for (size_t i = 0; i < N_OF(refused); i++) {
		sb_reset(&err);
		assert_null(python_resolve(&a, &d, &l, refused[i].version));
		if (!strstr(sb_str(&err), refused[i].want))
			fail_msg("%s: said %s", refused[i].version, sb_str(&err));
	}
	sb_release(&err);
	arena_free(&a);
}

/* The committed lock (found beside the sources, as cuwheel finds it) parses and pins 3.14 and 3.15
 * from sid, each with a sha256 for every package. */
static void test_the_committed_lock_pins_3_14_and_3_15(void **state)
{
	(void)state;
	struct arena a = {0};
	struct strbuf err = {0};
	struct diag d = {.emit = collect, .user = &err};
	struct python_lock l;
	const char *const no_env[] = {NULL};
	const char *path = python_lock_path(&a, no_env);
	assert_non_null(path);
	bool ok = python_lock_load(&a, &d, path, &l);
	const char *said = arena_strdup(&a, sb_str(&err));
	sb_release(&err);
	if (!ok)
		fail_msg("%s", said);
	assert_int_equal(l.n_sets, 2);
	assert_string_equal(l.sets[0].minor, "3.14");
	assert_string_equal(l.sets[1].minor, "3.15");
	for (size_t i = 0; i < l.n_sets; i++) {
		assert_string_equal(l.sets[i].suite, "sid");
		assert_true(l.sets[i].n_pkgs >= 10);
	}
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_good_lock_parses_with_its_origin_and_packages),
	    cmocka_unit_test(test_malformed_locks_are_refused_naming_what),
	    cmocka_unit_test(test_a_root_without_libc_or_pip_or_headers_is_refused),
	    cmocka_unit_test(test_a_version_pinned_twice_and_a_wrong_minor_are_refused),
	    cmocka_unit_test(test_versions_resolve_or_say_why_not),
	    cmocka_unit_test(test_the_committed_lock_pins_3_14_and_3_15),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
