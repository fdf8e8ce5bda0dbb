/* fuzz_metadata.c: libFuzzer target for what reads METADATA and WHEEL text (metadata.h has no
 * full METADATA parser: the readers are metadata_header, metadata_set_version and
 * metadata_wheel_retag): any input is handled without a crash or sanitizer report, a refusal
 * comes with exactly one diagnostic, and a rewritten Version reads back. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/metadata.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	/* A private copy without a terminating NUL lets ASan catch any read past size. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	static const char *const names[] = {
	    "Name", "Version", "Requires-Python", "Tag", "Wheel-Version", "Metadata-Version", ""};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)metadata_header(&a, text, size, names[i]);

	struct diag d = {0};
	size_t len = 0;
	char *out = metadata_set_version(&a, &d, "fuzz/METADATA", text, size, "9.8.7+cu130", &len);
	if (out ? d.errors != 0 : d.errors != 1)
		abort();
	if (out) {
		char *v = metadata_header(&a, out, len, "Version");
		if (!v)
			abort(); /* the header just written must be found */
	}

	struct diag d2 = {0};
	const struct wheel_tag tags[] = {{"cp312", "cp312", "manylinux_2_28_x86_64"},
	                                 {"cp313", "cp313", "linux_x86_64"}};
	char *w = metadata_wheel_retag(&a, &d2, "fuzz/WHEEL", text, size, (size & 1) ? "7" : NULL,
	                               tags, 2, &len);
	if (w ? d2.errors != 0 : d2.errors != 1)
		abort();
	if (w && !metadata_header(&a, w, len, "Wheel-Version") && !memchr(text, '\0', size) &&
	    memchr(text, '\n', size) == NULL)
		abort(); /* one header line, kept: it must still read */
	free(text);
	arena_free(&a);
	return 0;
}
