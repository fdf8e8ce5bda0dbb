/* buildflags.c: config-given flags of C/C++ sources (cxx-flags, OpenMP). */
#include "kernels/buildflags.h"

/* True when C/C++ sources built against torch ti (NULL: no torch) get -fopenmp: openmp = on,
 * or auto and that torch reports the OpenMP backend. */
static bool buildflags_openmp(const struct config *cfg, const struct torch_info *ti)
{
	if (cfg->openmp == TRI_ON)
		return true;
	return cfg->openmp == TRI_AUTO && ti && ti->present && ti->openmp == 1;
}

void buildflags_host(struct arena *a, const struct config *cfg, const struct torch_info *ti,
                     bool kernel, struct strv *out)
{
	if (kernel)
		for (size_t i = 0; i < cfg->kernels.cxx_flags.n; i++)
			strv_push(a, out, cfg->kernels.cxx_flags.v[i]);
	if (buildflags_openmp(cfg, ti)) {
		strv_push(a, out, "-DAT_PARALLEL_OPENMP");
		strv_push(a, out, "-fopenmp");
	}
}
