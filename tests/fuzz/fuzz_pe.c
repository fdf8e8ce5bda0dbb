/* fuzz_pe.c: libFuzzer target for the PE reader: any bytes are read without a crash or a
 * sanitizer report (the input is copied to a buffer of exactly its size, so any read past it
 * is caught); a refusal says why; what is read is consistent (names, the imported ones of each
 * DLL too, are non-empty strings). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "packager/pe.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_names(const struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i] || !sv->v[i][0] || strlen(sv->v[i]) > 4096)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	struct arena a = {0};
	struct pe_info pe;
	const char *err = NULL;
	if (pe_read_mem(&a, copy, size, &pe, &err)) {
		if (!pe_is_pe(copy, size))
			abort();
		check_names(&pe.imports);
		check_names(&pe.delay);
		for (size_t i = 0; i < pe.imports.n; i++)
			check_names(&pe.import_names[i]);
		for (size_t i = 0; i < pe.delay.n; i++)
			check_names(&pe.delay_names[i]);
		check_names(&pe.exports);
	} else if (!err || !*err) {
		abort(); /* a refusal says why */
	}
	arena_free(&a);
	free(copy);
	return 0;
}
