/* platform.c: the table of platforms cuwheel builds for. */
#include "standards/platform.h"

#include <string.h>

static const struct platform platforms[] = {
    {"linux_x86_64", "x86_64", false},
    {"linux_aarch64", "aarch64", false},
    {"win_amd64", "amd64", true},
    {"win_arm64", "arm64", true},
};

const struct platform *platform_find(const char *tag)
{
	for (size_t i = 0; i < sizeof(platforms) / sizeof(*platforms); i++)
		if (!strcmp(platforms[i].tag, tag))
			return &platforms[i];
	return NULL;
}

size_t platform_count(void)
{
	return sizeof(platforms) / sizeof(*platforms);
}

const struct platform *platform_at(size_t i)
{
	return &platforms[i];
}

bool platform_is_windows(const char *tag)
{
	return !strncmp(tag, "win_", 4);
}
