/* fuzz_toml.c: libFuzzer target for the TOML parser: any input is parsed without a crash, leak
 * or sanitizer report, fails with exactly one diagnostic, or succeeds and prints as JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "standards/toml.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	struct diag d = {0}; /* no emitter: messages are only counted */
	/* A private copy without a terminating NUL lets ASan catch any read past src.len. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	struct source src = {"fuzz.toml", text, size};
	struct toml_value *root = toml_parse(&a, &d, &src);
	if (root ? d.errors != 0 : d.errors != 1)
		abort(); /* the parser reports exactly the first error, and only on failure */
	if (root) {
		struct strbuf sb = {0};
		toml_to_tagged_json(root, &sb);
		sb_release(&sb);
	}
	free(text);
	arena_free(&a);
	return 0;
}
