/* test_beneath.c: paths resolved beneath a tree (base/beneath.h): openat2(RESOLVE_BENEATH) and
 * the component walk used where the kernel lacks it give the same answer on the same tree, for
 * links that stay inside, leave it as text, leave it only once followed (a -> . then
 * a/a/a/../../..), loop, dangle, or are absolute; and the bounded read refuses what is over its
 * limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/os-file.h"

static char base[64];
static char top[128];

static void put(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void ln(const char *target, const char *rel)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "%s/cuwheel-beneath-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(base))
		return -1;
	snprintf(top, sizeof(top), "%s/top", base);
	mkdir(top, 0755);
	char d[256];
	snprintf(d, sizeof(d), "%s/d", top);
	mkdir(d, 0755);
	put("f", "file\n");
	put("d/g", "g\n");
	char out[256];
	snprintf(out, sizeof(out), "%s/outside.txt", base);
	FILE *o = fopen(out, "w");
	fputs("secret\n", o);
	fclose(o);
	ln(".", "a");
	ln("..", "up");
	ln("/etc/passwd", "abs");
	ln("loop2", "loop1");
	ln("loop1", "loop2");
	ln("a/a/a/../outside.txt", "chain");
	ln("a/a/d/../d/g", "inside");
	ln("nothing/here", "dangling");
	ln("d", "dl");
	ln("dl/../dl/../..", "dlchain");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	struct diag d = {0};
	os_rm_rf(&d, base);
	return 0;
}

/* Opens rel both ways; returns the errno (0 when it opened) after checking they agree. */
static int both(const char *rel)
{
	int root = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(root >= 0);
	errno = 0;
	int fd1 = os_open_beneath(root, rel, O_RDONLY | O_NONBLOCK);
	int e1 = fd1 < 0 ? errno : 0;
	errno = 0;
	int fd2 = os_open_beneath_walk(root, rel, O_RDONLY | O_NONBLOCK);
	int e2 = fd2 < 0 ? errno : 0;
	if (fd1 >= 0 && fd2 >= 0) {
		struct stat s1, s2;
		assert_int_equal(fstat(fd1, &s1), 0);
		assert_int_equal(fstat(fd2, &s2), 0);
		assert_true(s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev);
	}
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	close(root);
	if (e1 != e2)
		fail_msg("%s: openat2 gives %s, the walk %s", rel, strerror(e1), strerror(e2));
	return e1;
}

static void beneath_opens_what_stays_inside(void **state)
{
	(void)state;
	assert_int_equal(both("f"), 0);
	assert_int_equal(both("d/g"), 0);
	assert_int_equal(both("a/a/a/f"), 0);
	assert_int_equal(both("inside"), 0);
	assert_int_equal(both("d/../f"), 0);
	assert_int_equal(both("dl/g"), 0);
	assert_int_equal(both("."), 0);
	assert_int_equal(both(""), 0);
}

static void beneath_refuses_what_leaves_the_tree_once_followed(void **state)
{
	(void)state;
	assert_int_equal(both("chain"), EXDEV); /* text stays inside, the walk does not */
	assert_int_equal(both("a/a/a/.."), EXDEV);
	assert_int_equal(both("up"), EXDEV);
	assert_int_equal(both("up/top/f"), EXDEV);
	assert_int_equal(both("abs"), EXDEV);
	assert_int_equal(both("/etc/passwd"), EXDEV);
	assert_int_equal(both(".."), EXDEV);
	assert_int_equal(both("d/../../outside.txt"), EXDEV);
	assert_int_equal(both("dlchain"), EXDEV);
}

static void beneath_reports_loops_and_missing_targets(void **state)
{
	(void)state;
	assert_int_equal(both("loop1"), ELOOP);
	assert_int_equal(both("dangling"), ENOENT);
	assert_int_equal(both("f/x"), ENOTDIR);
	assert_int_equal(both("missing"), ENOENT);
}

static void beneath_read_is_bounded_and_located(void **state)
{
	(void)state;
	struct arena a = {0};
	struct source src;
	struct diag d = {0};
	struct beneath_read r = {top, "inside", "x.tar.gz!top/inside", 100, "a test file"};
	assert_true(os_read_beneath(&a, &d, &r, &src));
	assert_string_equal(src.text, "g\n");
	assert_string_equal(src.path, "x.tar.gz!top/inside");
	r.max = 1; /* "g\n" is 2 bytes */
	assert_false(os_read_beneath(&a, &d, &r, &src));
	assert_int_equal(d.errors, 1);
	r.rel = "chain";
	r.max = 100;
	assert_false(os_read_beneath(&a, &d, &r, &src));
	assert_int_equal(d.errors, 2);
	r.rel = "d";
	assert_false(os_read_beneath(&a, &d, &r, &src));
	assert_int_equal(d.errors, 3);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(beneath_opens_what_stays_inside),
	    cmocka_unit_test(beneath_refuses_what_leaves_the_tree_once_followed),
	    cmocka_unit_test(beneath_reports_loops_and_missing_targets),
	    cmocka_unit_test(beneath_read_is_bounded_and_located),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
