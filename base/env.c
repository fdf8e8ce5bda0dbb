/* env.c: lookups in an environment passed down as a list (see env.h); no getenv. */
#include "base/env.h"

#include <string.h>

const char *env_value(const char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

const char *env_nonempty(const char *const *env, const char *name)
{
	const char *v = env_value(env, name);
	return v && *v ? v : NULL;
}
