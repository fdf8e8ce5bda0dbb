/* placed.c: the record of a wheel placed in dist/ and its check (see placed.h). */
#include "packager/placed.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/os-file.h"
#include "standards/digest.h"

static char *identity(struct arena *a, const struct os_stat *st)
{
	return arena_printf(
	    a, "%ju:%ju:%jd.%09ld:%jd.%09ld", (uintmax_t)st->dev, (uintmax_t)st->ino,
	    (intmax_t)(st->mtime_ns / 1000000000), (long)(st->mtime_ns % 1000000000),
	    (intmax_t)(st->ctime_ns / 1000000000), (long)(st->ctime_ns % 1000000000));
}

char *placed_record(struct arena *a, struct diag *d, const char *path)
{
	struct os_stat st;
	if (!os_stat(path, &st)) {
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
	struct os_stat st;
	if (!os_stat(*wheel, &st))
		return PLACED_MISSING;
	const char *line = record[n] ? record + n + 1 : "";
	char hex[65] = {0}, id[128] = {0};
	unsigned long long size = 0;
	if (sscanf(line, "sha256=%64[0-9a-f] size=%llu id=%127[0-9:.]", hex, &size, id) != 3 ||
	    strlen(hex) != 64)
		return PLACED_UNKNOWN;
	if (st.kind != OS_KIND_FILE || (unsigned long long)st.size != size)
		return PLACED_CHANGED;
	if (!strcmp(identity(a, &st), id))
		return PLACED_OK;
	struct diag quiet = {0};
	uint64_t got_size = 0;
	char *got = file_sha256_hex(a, &quiet, *wheel, &got_size);
	return got && got_size == size && !strcmp(got, hex) ? PLACED_OK : PLACED_CHANGED;
}
