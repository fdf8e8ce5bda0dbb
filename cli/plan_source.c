/* plan_source.c: where the project and its config come from: pyproject.toml in -C DIR, a
 * config file beside an unpacked tree (--config), or an sdist unpacked into the build dir. */
#include <string.h>

#include "base/os-file.h"
#include "cli/init.h"
#include "cli/plan_common.h"
#include "packager/sdist.h"

bool cli_is_sdist(const char *arg)
{
	size_t n = strlen(arg);
	return (n > 7 && !strcmp(arg + n - 7, ".tar.gz")) ||
	       (n > 4 && !strcmp(arg + n - 4, ".tgz"));
}

const char *cli_from_dir(struct cli *c, const char *p)
{
	if (p[0] == '/' || !strcmp(c->project_dir, "."))
		return p;
	return os_join(&c->arena, c->project_dir, p);
}

/* The build dir the config names (or CUWHEEL_BUILD_DIR), read before the project exists: the
 * sdist is unpacked under it. NULL after a diagnostic. */
static const char *early_build_dir(struct cli *c, const char *config)
{
	struct arena *a = &c->arena;
	for (size_t i = 0; c->env && c->env[i]; i++)
		if (!strncmp(c->env[i], "CUWHEEL_BUILD_DIR=", 18) && c->env[i][18])
			return os_abspath(a, c->env[i] + 18);
	struct source src;
	if (!os_read_file(a, &c->diag, config, &src))
		return NULL;
	src.path = config;
	struct toml_value *root = toml_parse(a, &c->diag, &src);
	if (!root)
		return NULL;
	const char *dir = "build/cuwheel";
	const struct toml_value *v =
	    toml_get(toml_get(toml_get(root, "tool"), "cuwheel"), "build-dir");
	if (v && v->type == TOML_STRING && v->u.str.s[0])
		dir = v->u.str.s;
	if (dir[0] == '/')
		return dir;
	char *base = os_realpath(a, config);
	if (!base) {
		diag_errno(&c->diag, config, "cannot open the config file");
		return NULL;
	}
	*strrchr(base, '/') = '\0';
	return os_join(a, base[0] ? base : "/", dir);
}

bool cli_config_load(struct cli *c, struct config *cfg)
{
	struct arena *a = &c->arena;
	if (cli_needs_capture(c)) {
		/* No [tool.cuwheel] anywhere: read the build from setup.py (cli/cmd_init.c). */
		const char *tree, *config;
		if (!cli_capture_on_the_fly(c, &tree, &config))
			return false;
		const char *sdist = c->sdist ? os_realpath(a, cli_from_dir(c, c->sdist)) : NULL;
		return config_load_with(a, &c->diag, tree, config, sdist, c->env, cfg);
	}
	if (!c->config_file && !c->sdist)
		return config_load(a, &c->diag, c->project_dir, c->env, cfg);
	const char *config = cli_from_dir(c, c->config_file);
	if (!os_realpath(a, config)) {
		diag_errno(&c->diag, config, "cannot open the config file");
		return false;
	}
	if (!c->sdist)
		return config_load_with(a, &c->diag, c->project_dir, config, NULL, c->env, cfg);
	const char *sdist = cli_from_dir(c, c->sdist);
	const char *build_dir = early_build_dir(c, config);
	if (!build_dir)
		return false;
	struct sdist_limits lim;
	sdist_default_limits(&lim);
	const char *tree;
	if (!sdist_unpack(a, &c->diag, sdist, os_join(a, build_dir, "sdist"), &lim, &tree))
		return false;
	const char *real = os_realpath(a, sdist);
	return config_load_sdist(a, &c->diag, tree, config, real ? real : sdist, sdist, c->env,
	                         cfg);
}
