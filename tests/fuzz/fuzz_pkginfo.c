/* fuzz_pkginfo.c: libFuzzer target for an sdist's PKG-INFO as cuwheel reads it at plan time
 * (pkginfo_parse, then pkginfo_validate): any input is handled without a crash or sanitizer
 * report; a refusal comes with a diagnostic; what is accepted holds no line break inside a
 * header value, each single-use field once, a valid Name and Version; and the time and memory
 * stay linear (libFuzzer's -rss_limit_mb and -timeout catch a quadratic join). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/pkginfo.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_accepted(const struct pkginfo *p)
{
	static const char *const once[] = {"Metadata-Version", "Name",
	                                   "Version",          "Summary",
	                                   "Requires-Python",  "License-Expression"};
	for (size_t k = 0; k < sizeof(once) / sizeof(*once); k++) {
		size_t seen = 0;
		for (size_t i = 0; i < p->n; i++)
			seen += !strcasecmp(p->v[i].name, once[k]);
		if (seen > 1)
			abort(); /* a single-use field accepted twice */
	}
	for (size_t i = 0; i < p->n; i++) {
		const char *v = p->v[i].value;
		if (strchr(v, '\r') || strchr(v, '\v') || strchr(v, '\f'))
			abort(); /* a line break Python's email parser would split at */
		if (strstr(v, "\xe2\x80\xa8") || strstr(v, "\xe2\x80\xa9") || strstr(v, "\xc2\x85"))
			abort();
		if (!strcasecmp(p->v[i].name, "Name") && (!v[0] || strchr(v, ' ')))
			abort(); /* an invalid name accepted (the NULL wheel name of issue 25) */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	/* A private copy; the parser's contract is a NUL-terminated source of len bytes. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	struct source src = {
	    .path = "demo-1.0.tar.gz!demo-1.0/PKG-INFO", .text = text, .len = size};
	struct diag d = {0};
	struct pkginfo p;
	bool ok = pkginfo_parse(&a, &d, &src, &p);
	if (ok != (d.errors == 0))
		abort(); /* a refusal without a diagnostic, or an error with success */
	if (ok) {
		struct diag d2 = {0};
		bool valid = pkginfo_validate(&a, &d2, &src, &p);
		if (valid != (d2.errors == 0))
			abort();
		if (valid)
			check_accepted(&p);
		/* Every header's raw text lies inside the input and ends where a line does. */
		for (size_t i = 0; i < p.n; i++) {
			const struct pkginfo_header *h = &p.v[i];
			if (h->raw < text || h->raw + h->raw_len > text + size || h->line < 1)
				abort();
		}
		if (p.body && (p.body < text || p.body + p.body_len != text + size))
			abort();
	}
	free(text);
	arena_free(&a);
	return 0;
}
