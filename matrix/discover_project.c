/* discover_project.c: turns a project's config into a request for toolchain/discover.c. */
#include "matrix/discover_project.h"

#include "base/os-file.h"

const char *discover_cache_dir(struct arena *a, const struct config *cfg)
{
	if (cfg && cfg->build_dir)
		return os_join(a, cfg->build_dir, "probes");
	return os_join(a, cuwheel_cache_dir(a, cfg->env), "probes");
}

/* Returns true when the config needs torch facts (a torch axis, a torch extension, kernels
 * that include torch headers), so the probes import torch. */
static bool discover_needs_torch(const struct config *cfg)
{
	if (cfg->matrix.torch.n > 0 || cfg->kernels.uses_torch == TRI_ON)
		return true;
	for (size_t i = 0; i < cfg->n_extensions; i++)
		if (cfg->extensions[i].kind == EXT_TORCH)
			return true;
	return false;
}

bool discover_with(struct arena *a, struct diag *d, const struct config *cfg, const char *cache_dir,
                   const struct discover_opts *o, struct discovery *out)
{
	struct discover_opts opts = o ? *o : (struct discover_opts){0};
	opts.probe_torch = opts.probe_torch || discover_needs_torch(cfg);
	const struct discover_request r = {.env = cfg->env,
	                                   .project_dir = cfg->project_dir,
	                                   .toolkits = cfg->toolkits,
	                                   .pythons = cfg->pythons};
	return discover_run(a, d, &r, cache_dir, &opts, out);
}

bool discover(struct arena *a, struct diag *d, const struct config *cfg, const char *cache_dir,
              struct discovery *out)
{
	return discover_with(a, d, cfg, cache_dir, NULL, out);
}
