/* fuzz_pep440.c: libFuzzer target for the PEP 440 parser and specifier matcher: any input is
 * parsed without a crash or sanitizer report; an accepted version normalises to a canonical
 * text that parses back to an equal version; specifier matching never crashes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "standards/version.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Input: "<version>\n<specifiers>"; both parts are NUL-terminated C strings (the API
	 * takes C strings), so an embedded NUL just ends a part early. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *spec = memchr(text, '\n', size);
	if (spec)
		*spec++ = '\0';
	struct arena a = {0};
	struct pep440 v;
	const char *err = NULL;
	if (pep440_parse(&a, text, &v, &err)) {
		char *canon = pep440_str(&a, &v);
		struct pep440 w;
		const char *err2 = NULL;
		if (!pep440_parse(&a, canon, &w, &err2))
			abort(); /* the canonical form must parse */
		if (pep440_cmp(&v, &w) != 0 || pep440_cmp(&w, &v) != 0)
			abort(); /* and be the same version */
		if (strcmp(canon, pep440_str(&a, &w)) != 0)
			abort(); /* normalising is idempotent */
		if (!pep440_is_canonical(&a, canon))
			abort();
		(void)pep440_public(&a, &v);
		if (spec) {
			const char *serr = NULL;
			(void)pep440_satisfies(&a, &v, spec, &serr);
		}
	} else if (!err) {
		abort(); /* a refusal says why */
	}
	if (spec) {
		const char *lerr = NULL;
		char *local = pep440_normalize_local(&a, spec, &lerr);
		if (!local && !lerr)
			abort();
	}
	arena_free(&a);
	free(text);
	return 0;
}
