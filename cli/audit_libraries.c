/* audit_libraries.c: the libraries loaded by path that audit, index and retag tell the audit
 * of: --library, and for index and retag the project's config's loaded-by = "path". */
#include <string.h>

#include "base/os-file.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/init.h"
#include "cli/plan_common.h"
#include "matrix/config.h"
#include "packager/audit.h"

bool cli_library_add(struct cli *c, const char *cmd, const char *module, struct strv *libraries)
{
	if (!config_module_name_valid(module)) {
		cli_usage(c, cmd,
		          "--library '%s': not a dotted Python module name (pkg._ops: the module "
		          "path of the library inside the wheel, as loaded-by = \"path\" names it)",
		          module);
		return false;
	}
	if (!strv_contains(libraries, module))
		strv_push(&c->arena, libraries, module);
	return true;
}

/* The config of -C DIR (or --config FILE beside it), its errors reported on d. */
static bool load_config(struct cli *c, struct diag *d, struct config *cfg)
{
	struct arena *a = &c->arena;
	if (!c->config_file)
		return config_load(a, d, c->project_dir, c->env, cfg);
	const char *given = cli_from_dir(c, c->config_file);
	const char *config = os_realpath(a, given);
	if (!config) {
		diag_errno(d, given, "cannot open the config file");
		return false;
	}
	return config_load_with(a, d, c->project_dir, config, NULL, c->env, cfg);
}

void cli_libraries_from_config(struct cli *c, struct audit_libraries *out)
{
	struct arena *a = &c->arena;
	/* Reading the config is a convenience for wheels built here: what it cannot read is
	 * said, and the command goes on as without a config. */
	struct diag warn = cli_diag_as_warnings(c);
	int before = c->diag.warnings;
	struct config cfg = {0};
	if (!cli_has_config(c, &warn) || !load_config(c, &warn, &cfg)) {
		if (c->diag.warnings > before)
			diag_msg(&c->diag, DIAG_WARNING,
			         "going on without the project's config: no library loaded by path "
			         "(loaded-by = \"path\") is read from it");
		return;
	}
	struct strv *own = arena_calloc(a, 1, sizeof(*own));
	config_libraries(a, &cfg, own);
	if (!own->n || !cfg.project.name)
		return;
	out->project = cfg.project.name;
	out->own = own;
	struct strbuf sb = {0};
	for (size_t i = 0; i < own->n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", own->v[i]);
	diag_path(&c->diag, DIAG_NOTE, cfg.config_file ? cfg.config_file : cfg.pyproject,
	          "loaded by path (loaded-by = \"path\"): %s: no PyInit_ is asked of %s in the "
	          "wheels of %s (--library names one for every wheel)",
	          sb_str(&sb), own->n == 1 ? "it" : "them", cfg.project.name);
	sb_release(&sb);
}
