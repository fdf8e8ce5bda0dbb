/* fuzz_record.c: libFuzzer target for the RECORD reader: any input is parsed without a crash or
 * sanitizer report, fails with exactly one diagnostic or succeeds; an accepted RECORD renders
 * and parses back to the same rows (plus RECORD's own). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/record.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* True when both strings are NULL or equal. */
static bool same(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	struct diag d = {0};
	/* A private copy without a terminating NUL lets ASan catch any read past len. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	struct record r = {0};
	bool ok = record_parse(&a, &d, "fuzz/RECORD", text, size, &r);
	if (ok ? d.errors != 0 : d.errors != 1)
		abort();
	if (ok) {
		for (size_t i = 0; i < r.n; i++)
			if (!record_find(&r, r.v[i].path))
				abort();
		size_t len = 0;
		char *out = record_render(&a, &r, "x.dist-info/RECORD", &len);
		struct record back = {0};
		struct diag d2 = {0};
		/* Fields holding a NUL cannot round-trip through C strings; others must. */
		bool has_nul = memchr(text, '\0', size) != NULL;
		if (!record_parse(&a, &d2, "render", out, len, &back)) {
			if (!has_nul)
				abort();
		} else if (!has_nul) {
			if (back.n != r.n + 1)
				abort();
			for (size_t i = 0; i < r.n; i++)
				if (!same(r.v[i].path, back.v[i].path) ||
				    !same(r.v[i].hash, back.v[i].hash) ||
				    r.v[i].has_size != back.v[i].has_size ||
				    r.v[i].size != back.v[i].size)
					abort();
		}
	}
	free(text);
	arena_free(&a);
	return 0;
}
