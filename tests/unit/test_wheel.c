/* test_wheel.c: wheel_pack's archive (order, timestamps, modes, RECORD, determinism across
 * thread counts, refusals) read back through the hardened reader, and wheel_extract. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zip.h>

#include "base/os-file.h"
#include "standards/record.h"
#include "packager/wheel.h"
#include "standards/wheel_read.h"

struct fx {
	struct arena a;
	struct diag d;
	char dir[64];
	char *stage, *out;
	struct project_meta meta;
};

static void put(struct fx *f, const char *rel, const char *data, size_t n, mode_t mode)
{
	char *p = os_join(&f->a, f->stage, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	assert_true(os_mkdir_p(&f->d, p));
	*slash = '/';
	FILE *fp = fopen(p, "wb");
	assert_non_null(fp);
	fwrite(data, 1, n, fp);
	fclose(fp);
	chmod(p, mode);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/cuwheel-test-wheel-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->stage = os_join(&f->a, f->dir, "stage");
	f->out = os_join(&f->a, f->dir, "out");
	f->meta.name = "Demo.Pkg";
	f->meta.version = "1.0";
	setenv("TZ", "UTC", 1);
	tzset();
	/* Created out of order on purpose; a large member exercises the parallel chunks. */
	put(f, "zz/last.py", "z\n", 2, 0644);
	put(f, "demo/run.sh", "#!/bin/sh\n", 10, 0700);
	size_t big = 3u << 20;
	char *b = malloc(big);
	for (size_t i = 0; i < big; i++)
		b[i] = (char)((i * 2654435761u) >> 13);
	put(f, "demo/_C.so", b, big, 0755);
	free(b);
	put(f, "demo/__init__.py", "", 0, 0600);
	put(f, "Demo/Upper.py", "u\n", 2, 0644);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct diag d = {0};
	os_rm_rf(&d, f->dir);
	arena_free(&f->a);
	free(f);
	return 0;
}

static char *pack(struct fx *f, int threads, int64_t epoch, const char *out)
{
	struct pack_opts o = {.staged_dir = f->stage,
	                      .meta = &f->meta,
	                      .python = "cp312",
	                      .abi = "cp312",
	                      .platform = "linux_x86_64",
	                      .local = "CU130",
	                      .compression = 6,
	                      .out_dir = out,
	                      .source_date_epoch = epoch,
	                      .threads = threads,
	                      .generator = "test"};
	char *path = NULL;
	return wheel_pack(&f->a, &f->d, &o, &path) ? path : NULL;
}

static void members_sorted_dist_info_last_with_fixed_times_and_modes(void **state)
{
	struct fx *f = *state;
	char *w = pack(f, 2, 1600000000, f->out);
	assert_non_null(w);
	assert_string_equal(strrchr(w, '/') + 1, "demo_pkg-1.0+cu130-cp312-cp312-linux_x86_64.whl");
	struct zip_reader r;
	assert_true(zip_reader_open(&f->a, &f->d, w, NULL, &r));
	const char *want[] = {"Demo/Upper.py",
	                      "demo/_C.so",
	                      "demo/__init__.py",
	                      "demo/run.sh",
	                      "zz/last.py",
	                      "demo_pkg-1.0+cu130.dist-info/METADATA",
	                      "demo_pkg-1.0+cu130.dist-info/WHEEL",
	                      "demo_pkg-1.0+cu130.dist-info/RECORD"};
	assert_int_equal(r.n_members, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct zip_member *m = &r.members[i];
		assert_string_equal(m->name, want[i]);
		time_t t = (time_t)m->mtime;
		struct tm tm;
		localtime_r(&t, &tm); /* libzip decodes DOS time as local time; TZ=UTC here */
		assert_int_equal(tm.tm_year + 1900, 2020);
		assert_int_equal(tm.tm_mon + 1, 9);
		assert_int_equal(tm.tm_mday, 13);
		assert_int_equal(tm.tm_hour, 12);
		assert_int_equal(tm.tm_min, 26);
		assert_int_equal(tm.tm_sec, 40);
		bool exec = strstr(m->name, "run.sh") || strstr(m->name, "_C.so");
		assert_int_equal(m->mode, 0100000 | (exec ? 0755 : 0644));
		assert_int_equal(m->method, 8);
		assert_int_equal(m->flags & ZIP_MEMBER_DATA_DESCRIPTOR, 0);
	}
	assert_false(r.has_data_descriptors);
	assert_false(r.has_comment);
	/* RECORD lists every other member with its hash and size, then itself. */
	char *rec;
	size_t len;
	assert_true(zip_reader_read(&f->a, &f->d, &r, &r.members[7], 1 << 20, &rec, &len));
	struct record rows = {0};
	assert_true(record_parse(&f->a, &f->d, "RECORD", rec, len, &rows));
	assert_int_equal(rows.n, 8);
	for (size_t i = 0; i < 7; i++) {
		assert_string_equal(rows.v[i].path, want[i]);
		assert_int_equal(rows.v[i].size, r.members[i].size);
		assert_non_null(rows.v[i].hash);
	}
	assert_string_equal(rows.v[7].path, want[7]);
	assert_null(rows.v[7].hash);
	char *data;
	assert_true(zip_reader_read(&f->a, &f->d, &r, &r.members[1], 8u << 20, &data, &len));
	assert_int_equal(len, 3u << 20);
	zip_reader_close(&r);
	assert_int_equal(f->d.errors, 0);
}

static bool same_file(struct arena *a, const char *x, const char *y)
{
	struct diag d = {0};
	struct source sx, sy;
	return os_read_file(a, &d, x, &sx) && os_read_file(a, &d, y, &sy) && sx.len == sy.len &&
	       memcmp(sx.text, sy.text, sx.len) == 0;
}

static void bytes_do_not_depend_on_threads_and_default_time_is_1980(void **state)
{
	struct fx *f = *state;
	char *w1 = pack(f, 1, -1, os_join(&f->a, f->dir, "o1"));
	char *w4 = pack(f, 4, -1, os_join(&f->a, f->dir, "o4"));
	char *w0 = pack(f, 2, 0, os_join(&f->a, f->dir, "o0")); /* before 1980: clamped */
	assert_non_null(w1);
	assert_true(same_file(&f->a, w1, w4));
	assert_true(same_file(&f->a, w1, w0));
	char *w2 = pack(f, 1, 1600000000, os_join(&f->a, f->dir, "o2"));
	assert_false(same_file(&f->a, w1, w2));
}

static void symlink_in_tree_is_refused_and_nothing_written(void **state)
{
	struct fx *f = *state;
	char *l = os_join(&f->a, f->stage, "demo/link.py");
	assert_int_equal(symlink("run.sh", l), 0);
	char *out = os_join(&f->a, f->dir, "o-link");
	struct diag d = {0};
	f->d = d;
	assert_null(pack(f, 1, -1, out));
	assert_int_equal(f->d.errors, 1);
	struct strv names = {0};
	assert_true(!os_list_dir(&f->a, out, &names) || names.n == 0);
	unlink(l);
}

static void stale_temp_files_are_swept(void **state)
{
	struct fx *f = *state;
	char *out = os_join(&f->a, f->dir, "o-sweep");
	assert_true(os_mkdir_p(&f->d, out));
	char *stale =
	    os_join(&f->a, out, ".demo_pkg-1.0+cu130-cp312-cp312-linux_x86_64.whl.tmp.AbC123");
	char *other = os_join(&f->a, out, ".other.whl.tmp.AbC123");
	fclose(fopen(stale, "w"));
	fclose(fopen(other, "w"));
	assert_non_null(pack(f, 1, -1, out));
	assert_false(os_exists(stale));
	assert_true(os_exists(other));
}

static void extract_writes_inside_dest_only(void **state)
{
	struct fx *f = *state;
	char *w = pack(f, 1, -1, os_join(&f->a, f->dir, "o-ex"));
	char *dest = os_join(&f->a, f->dir, "ex");
	assert_true(wheel_extract(&f->a, &f->d, w, dest, NULL));
	struct stat st;
	assert_int_equal(stat(os_join(&f->a, dest, "demo/run.sh"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	assert_int_equal(stat(os_join(&f->a, dest, "zz/last.py"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* Extracting again over existing files is refused (O_EXCL), not overwritten. */
	struct diag d = {0};
	assert_false(wheel_extract(&f->a, &d, w, dest, NULL));

	/* Hostile zips made with libzip: traversal, absolute, symlink attribute. */
	const char *bad[] = {"../escape.txt", "/abs.txt", "ok/../../escape.txt", "link"};
	for (size_t i = 0; i < 4; i++) {
		char *zp = arena_printf(&f->a, "%s/bad%zu.zip", f->dir, i);
		int err;
		zip_t *z = zip_open(zp, ZIP_CREATE | ZIP_TRUNCATE, &err);
		assert_non_null(z);
		zip_source_t *s = zip_source_buffer(z, "boom", 4, 0);
		zip_int64_t idx = zip_file_add(z, bad[i], s, ZIP_FL_ENC_UTF_8);
		assert_true(idx >= 0);
		if (i == 3)
			zip_file_set_external_attributes(z, (zip_uint64_t)idx, 0, ZIP_OPSYS_UNIX,
			                                 0120777u << 16);
		assert_int_equal(zip_close(z), 0);
		char *dd = arena_printf(&f->a, "%s/exbad%zu/inner", f->dir, i);
		struct diag d2 = {0};
		assert_false(wheel_extract(&f->a, &d2, zp, dd, NULL));
		assert_int_equal(d2.errors, 1);
		assert_false(os_exists(arena_printf(&f->a, "%s/exbad%zu/escape.txt", f->dir, i)));
		assert_false(os_exists(arena_printf(&f->a, "%s/exbad%zu/inner/link", f->dir, i)));
	}
	/* A directory of dest replaced by a symlink is not followed. */
	char *zp = arena_printf(&f->a, "%s/sub.zip", f->dir);
	int err;
	zip_t *z = zip_open(zp, ZIP_CREATE | ZIP_TRUNCATE, &err);
	zip_file_add(z, "sub/x.txt", zip_source_buffer(z, "x", 1, 0), 0);
	assert_int_equal(zip_close(z), 0);
	char *d3 = os_join(&f->a, f->dir, "ex-sym");
	char *outside = os_join(&f->a, f->dir, "outside");
	assert_true(os_mkdir_p(&f->d, d3));
	assert_true(os_mkdir_p(&f->d, outside));
	assert_int_equal(symlink(outside, os_join(&f->a, d3, "sub")), 0);
	struct diag d4 = {0};
	assert_false(wheel_extract(&f->a, &d4, zp, d3, NULL));
	assert_false(os_exists(os_join(&f->a, outside, "x.txt")));
}

static void names_are_checked(void **state)
{
	(void)state;
	assert_null(zip_name_problem("a/b.py"));
	assert_null(zip_name_problem("caf\xc3\xa9.txt"));
	assert_non_null(zip_name_problem(""));
	assert_non_null(zip_name_problem("a//b"));
	assert_non_null(zip_name_problem("a/./b"));
	assert_non_null(zip_name_problem("C:/x"));
	assert_non_null(zip_name_problem("a\\b"));
	assert_non_null(zip_name_problem("a\nb"));
	assert_non_null(zip_name_problem("bad\xc3"));
	assert_non_null(zip_name_problem("over\xc0\xaflong"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        members_sorted_dist_info_last_with_fixed_times_and_modes, setup, teardown),
	    cmocka_unit_test_setup_teardown(bytes_do_not_depend_on_threads_and_default_time_is_1980,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(symlink_in_tree_is_refused_and_nothing_written, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(stale_temp_files_are_swept, setup, teardown),
	    cmocka_unit_test_setup_teardown(extract_writes_inside_dest_only, setup, teardown),
	    cmocka_unit_test(names_are_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
