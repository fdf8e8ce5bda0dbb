/* platform.h: the platforms cuwheel builds for (PEP 425 platform tags, before manylinux
 * promotion): the one table that the config, the matrix and the CI writer read. */
#ifndef CUWHEEL_STANDARDS_PLATFORM_H
#define CUWHEEL_STANDARDS_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

struct platform {
	const char *tag;     /* "linux_x86_64", "win_amd64" */
	const char *machine; /* uname -m on Linux, the MSVC target on Windows: x86_64, amd64 */
	bool windows;
};

/* Returns the platform named tag, or NULL when cuwheel does not build for it. */
const struct platform *platform_find(const char *tag);
/* Returns the number of platforms; platform_at(i) is the i-th, in the table's order. */
size_t platform_count(void);
/* Returns the i-th platform (i < platform_count()). */
const struct platform *platform_at(size_t i);
/* True when tag is a Windows platform tag (known or not: "win_" prefix). */
bool platform_is_windows(const char *tag);

#endif
