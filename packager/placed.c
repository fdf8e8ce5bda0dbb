/* placed.c: the record of a wheel placed in dist/ and its check (see placed.h). */
#include "packager/placed.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "standards/digest.h"

static char *identity(struct arena *a, const struct stat *st)
{
	return arena_printf(a, "%ju:%ju:%jd.%09ld:%jd.%09ld", (uintmax_t)st->st_dev,
	                    (uintmax_t)st->st_ino, (intmax_t)st->st_mtim.tv_sec,
	                    st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

char *placed_record(struct arena *a, struct diag *d, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		diag_errno(d, path, "cannot stat the placed wheel");
		return NULL;
	}
	uint64_t size = 0;
	char *hex = file_sha256_hex(a, d, path, &size);
	if (!hex)
		return NULL;
	/* The identity after hashing: a wheel rewritten meanwhile gets hashed again next time. */
	return arena_printf(a, "%s\nsha256=%s size=%" PRIu64 " id=%s\n", path, hex, size,
	                    identity(a, &st));
}

enum placed_state placed_check(struct arena *a, const char *record, const char **wheel)
{
	size_t n = strcspn(record, "\n");
	*wheel = n ? arena_strndup(a, record, n) : NULL;
	if (!n)
		return PLACED_UNKNOWN;
	struct stat st;
	if (stat(*wheel, &st) != 0)
		return PLACED_MISSING;
	const char *line = record[n] ? record + n + 1 : "";
	char hex[65] = {0}, id[128] = {0};
	unsigned long long size = 0;
	if (sscanf(line, "sha256=%64[0-9a-f] size=%llu id=%127[0-9:.]", hex, &size, id) != 3 ||
	    strlen(hex) != 64)
		return PLACED_UNKNOWN;
	if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size != size)
		return PLACED_CHANGED;
	if (!strcmp(identity(a, &st), id))
		return PLACED_OK;
	struct diag quiet = {0};
	uint64_t got_size = 0;
	char *got = file_sha256_hex(a, &quiet, *wheel, &got_size);
	return got && got_size == size && !strcmp(got, hex) ? PLACED_OK : PLACED_CHANGED;
}
