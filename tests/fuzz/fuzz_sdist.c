/* fuzz_sdist.c: libFuzzer target for the sdist reader (the tar reader over zlib's gzip stream)
 * and the PKG-INFO parser. Input that is not gzip is compressed first, so the fuzzer mutates
 * tar headers rather than deflate blocks; gzip input is read as it is. Any input is handled
 * without a crash or sanitizer report, a refusal comes with exactly one diagnostic, and every
 * member handed out passed the checks (relative, no '..', one top-level directory). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/pkginfo.h"
#include "packager/sdist.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const char *top; /* the first member's path: its first component is the top */
	size_t top_len;
	size_t n;
};

static bool check_entry(void *user, const struct sdist_entry *e)
{
	struct seen *s = user;
	const char *p = e->path;
	if (!*p || p[0] == '/' || strstr(p, "/../") || !strncmp(p, "../", 3) ||
	    (strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/..")) || !strcmp(p, ".."))
		abort();
	size_t top = strcspn(p, "/");
	if (s->top && (s->top_len != top || strncmp(p, s->top, top)))
		abort();
	if (!s->top) {
		s->top = p; /* arena-owned for the whole run */
		s->top_len = top;
	}
	if (e->kind == SDIST_SYMLINK && (!e->link || e->link[0] == '/'))
		abort();
	if (e->kind == SDIST_FILE && e->size && !e->data)
		abort();
	s->n++;
	return (s->n % 97) != 96; /* now and then, stop from the callback */
}

/* gzip-compresses in[0..n) into a malloc'd buffer; NULL when zlib fails. */
static unsigned char *gzip_of(const uint8_t *in, size_t n, size_t *out_n)
{
	z_stream zs = {0};
	if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&zs, (uLong)n) + 64;
	unsigned char *buf = malloc(cap);
	if (!buf) {
		deflateEnd(&zs);
		return NULL;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = buf;
	zs.avail_out = (uInt)cap;
	int rc = deflate(&zs, Z_FINISH);
	*out_n = cap - zs.avail_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return NULL;
	}
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	struct sdist_limits lim = {
	    .max_total = 1 << 20, .max_member = 1 << 18, .max_members = 512, .max_path = 1024};
	size_t gz_n = size;
	unsigned char *gz = NULL;
	if (!(size >= 2 && data[0] == 0x1f && data[1] == 0x8b) &&
	    !(gz = gzip_of(data, size, &gz_n)))
		return 0;
	const unsigned char *in = gz ? gz : data;
	struct diag d = {0};
	struct seen s = {0};
	const char *top = NULL;
	bool ok = sdist_read(&a, &d, "fuzz.tar.gz", in, gz_n, &lim, check_entry, &s, &top);
	/* A stop from the callback reports nothing of its own; any other refusal reports once. */
	bool stopped = (s.n % 97) == 96;
	if (ok ? (d.errors != 0 || !top) : (!stopped && d.errors != 1))
		abort();
	free(gz);

	/* The same bytes as PKG-INFO (a private copy: ASan catches reads past size). */
	char *text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
		struct source src = {.path = "PKG-INFO", .text = text, .len = size};
		struct pkginfo pk;
		struct diag d2 = {0};
		bool pok = pkginfo_parse(&a, &d2, &src, &pk);
		if (pok ? d2.errors != 0 : d2.errors != 1)
			abort();
		if (pok && (!pkginfo_get(&pk, "Name") || !pkginfo_get(&pk, "Version")))
			abort();
		free(text);
	}
	arena_free(&a);
	return 0;
}
