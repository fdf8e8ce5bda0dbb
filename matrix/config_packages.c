/* config_packages.c: packages = "find", the top-level packages of a project found the way
 * setuptools' find_packages() finds them, for projects whose setup.py says so. */
#include <string.h>

#include "base/os.h"
#include "matrix/config_internal.h"

bool config_find_packages(struct cfg_reader *r, struct config *cfg, const struct toml_value *at)
{
	if (strcmp(at->u.str.s, "find") != 0) {
		cfg_error(r, at,
		          "[tool.cuwheel].packages must be an array of directories or \"find\", "
		          "not '%s'",
		          at->u.str.s);
		return false;
	}
	cfg->packages_found = true;
	struct strv names = {0};
	if (!os_list_dir(r->a, cfg->project_dir, &names)) {
		cfg_error(r, at, "cannot list %s", cfg->project_dir);
		return false;
	}
	/* find_packages() takes every directory with an __init__.py whose name is an identifier
	 * (setuptools skips others, and never looks into a directory without __init__.py). */
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		bool ident =
		    (n[0] == '_' || (n[0] >= 'A' && n[0] <= 'Z') || (n[0] >= 'a' && n[0] <= 'z'));
		for (const char *p = n; ident && *p; p++)
			ident = *p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
			        (*p >= 'a' && *p <= 'z');
		char *dir = os_join(r->a, cfg->project_dir, n);
		if (ident && os_is_dir(dir) && os_exists(os_join(r->a, dir, "__init__.py")))
			strv_push(r->a, &cfg->packages, n);
	}
	if (cfg->packages.n == 0) {
		cfg_error(r, at, "packages = \"find\" found no directory with an __init__.py in %s",
		          cfg->project_dir);
		return false;
	}
	return true;
}
