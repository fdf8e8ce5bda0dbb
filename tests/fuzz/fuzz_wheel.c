/* fuzz_wheel.c: libFuzzer target for the hardened wheel reader: any bytes, written to a temp
 * file (wheel_read.h opens paths only), are opened, every member read and the archive extracted
 * without a crash or sanitizer report; a refusal comes with a diagnostic; extraction writes
 * nothing outside its destination (the destination's parent holds only it afterwards). */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/wheel_read.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* nftw callback: removes one entry (depth-first). */
static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	return remove(path);
}

/* Returns the number of entries in dir other than . and .. (-1 when unreadable). */
static int count_entries(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char base[512], zip[600], dest[600];
	snprintf(base, sizeof(base), "%s/fuzz_wheel.%ld", tmp && *tmp ? tmp : "/tmp",
	         (long)getpid());
	snprintf(zip, sizeof(zip), "%s.whl", base);
	snprintf(dest, sizeof(dest), "%s.d/dest", base);
	FILE *f = fopen(zip, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);

	/* Small limits keep the fuzzer's memory bounded; the checks are the same at any size. */
	struct extract_limits lim = {0};
	lim.max_members = 1000;
	lim.max_member_size = 1u << 20;
	lim.max_total_size = 4u << 20;
	lim.max_ratio = 100;
	lim.fold_case = size & 1;

	struct arena a = {0};
	struct diag d = {0};
	struct zip_reader r = {0};
	if (zip_reader_open(&a, &d, zip, &lim, &r)) {
		if (d.errors)
			abort();
		for (size_t i = 0; i < r.n_members; i++) {
			const struct zip_member *m = &r.members[i];
			if (zip_reader_find(&r, m->name) == NULL)
				abort();
			if (m->is_dir)
				continue;
			char *buf = NULL;
			size_t len = 0;
			struct diag dm = {0};
			if (zip_reader_read(&a, &dm, &r, m, 1u << 20, &buf, &len)) {
				if (len != m->size || buf[len] != '\0')
					abort(); /* the declared size was checked */
			} else if (dm.errors != 1) {
				abort();
			}
		}
	} else if (d.errors == 0) {
		abort(); /* a refusal says why */
	}
	zip_reader_close(&r);

	char parent[600];
	snprintf(parent, sizeof(parent), "%s.d", base);
	mkdir(parent, 0700);
	struct diag de = {0};
	bool ok = wheel_extract(&a, &de, zip, dest, &lim);
	if (ok ? de.errors != 0 : de.errors == 0)
		abort();
	int n = count_entries(parent);
	if (n > 1)
		abort(); /* something was written beside the destination */
	nftw(parent, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	unlink(zip);
	arena_free(&a);
	return 0;
}
