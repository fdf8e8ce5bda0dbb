/* discover_cross.c: the toolkits and interpreters that build another platform's wheels on this
 * machine, made from the host's toolkit and the cross parts installed in cuwheel's cache
 * (provision_cross.h): the cross compiler as the toolkit's host compiler, the target's static
 * CUDA runtime as its library directory, the target's headers as the interpreter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "standards/version.h"
#include "toolchain/discover.h"

/* The installed part of platform of kind for minor (NULL: any), the newest when several. */
static const struct cross_installed *find_part(const struct discovery *ds, const char *platform,
                                               enum cross_kind kind, const char *minor)
{
	const struct cross_installed *best = NULL;
	for (size_t i = 0; i < ds->n_cross; i++) {
		const struct cross_installed *p = &ds->cross[i];
		if (p->kind != kind || strcmp(p->platform, platform) != 0 ||
		    (minor && strcmp(p->minor, minor) != 0))
			continue;
		if (!best || version_dotted_cmp(p->version, best->version) > 0)
			best = p;
	}
	return best;
}

const struct toolkit *discover_cross_toolkit(struct arena *a, const struct discovery *ds,
                                             const char *cuda, const char *platform,
                                             const char **missing)
{
	*missing = NULL;
	const struct toolkit *host = discover_toolkit(ds, cuda);
	if (!host)
		return NULL;
	const struct cross_installed *cc = find_part(ds, platform, CROSS_COMPILER, NULL);
	const struct cross_installed *rt = find_part(ds, platform, CROSS_CUDA, cuda);
	if (!cc || !rt) {
		*missing = !cc ? "gcc" : arena_printf(a, "cuda-%s", cuda);
		return NULL;
	}
	struct toolkit *tk = arena_alloc(a, sizeof(*tk));
	*tk = *host;
	tk->platform = arena_strdup(a, platform);
	tk->lib_dir = os_join(a, rt->root, "lib64");
	tk->has_cudart_static = true;
	tk->host = (struct host_compiler){.cc = cross_cc(a, cc, false),
	                                  .cxx = cross_cc(a, cc, true),
	                                  .version = cc->version,
	                                  .ccbin = true};
	/* Given an aarch64 host compiler, nvcc looks for targets/aarch64-linux; the host's
	 * target dir holds the same headers, and nvcc links nothing here. */
	if (os_is_dir(os_join(a, host->root, "targets/x86_64-linux")))
		tk->target_dir = "x86_64-linux";
	return tk;
}

/* The Python triplet of a platform ("aarch64-linux-gnu" for linux_aarch64). */
static const char *triplet_of(const struct discovery *ds, const char *platform)
{
	const struct cross_installed *cc = find_part(ds, platform, CROSS_COMPILER, NULL);
	return cc ? cc->triplet : NULL;
}

const struct interp *discover_cross_python(struct arena *a, const struct discovery *ds,
                                           const char *version, bool at_least, const char *platform)
{
	int major = 0, minor = 0;
	const char *trip = triplet_of(ds, platform);
	if (!trip || sscanf(version, "%d.%d", &major, &minor) != 2 || strchr(version, 't'))
		return NULL;
	const struct cross_installed *best = NULL;
	int best_minor = 0;
	for (size_t i = 0; i < ds->n_cross; i++) {
		const struct cross_installed *p = &ds->cross[i];
		int pm = 0, pn = 0;
		if (p->kind != CROSS_PYTHON || strcmp(p->platform, platform) != 0 ||
		    sscanf(p->minor, "%d.%d", &pm, &pn) != 2 || pm != major ||
		    (at_least ? pn < minor : pn != minor))
			continue;
		if (!best || pn < best_minor ||
		    (pn == best_minor && version_dotted_cmp(p->version, best->version) > 0)) {
			best = p;
			best_minor = pn;
		}
	}
	if (!best)
		return NULL;
	struct interp *py = arena_calloc(a, 1, sizeof(*py));
	py->path = arena_printf(a, "%s (headers only)", best->root);
	py->version = best->version;
	py->major = major;
	py->minor = best_minor;
	py->implementation = "cpython";
	py->abiflags = "";
	py->soabi = arena_printf(a, "cpython-%d%d-%s", major, best_minor, trip);
	py->ext_suffix = arena_printf(a, ".%s.so", py->soabi);
	py->include_dir =
	    arena_printf(a, "%s/usr/include/python%d.%d", best->root, major, best_minor);
	py->platform = arena_strdup(a, platform);
	py->found_by = "cross";
	py->torch.cxx11_abi = -1;
	py->torch.openmp = -1;
	return py;
}

const struct interp *discover_cross_torch(struct arena *a, const struct discovery *ds,
                                          const char *version, bool at_least, const char *platform,
                                          const char *torch)
{
	const struct cross_installed *best = NULL;
	for (size_t i = 0; i < ds->n_cross; i++) {
		const struct cross_installed *p = &ds->cross[i];
		if (p->kind != CROSS_TORCH || strcmp(p->platform, platform) != 0 ||
		    strcmp(p->minor, torch) != 0 || !p->python[0] || !p->torch_version[0])
			continue;
		int c = version_dotted_cmp(p->python, version);
		if ((at_least ? c < 0 : c != 0) ||
		    !discover_cross_python(a, ds, p->python, false, platform))
			continue;
		if (!best || version_dotted_cmp(p->python, best->python) < 0 ||
		    (!strcmp(p->python, best->python) &&
		     version_dotted_cmp(p->version, best->version) > 0))
			best = p;
	}
	if (!best)
		return NULL;
	const struct interp *base = discover_cross_python(a, ds, best->python, false, platform);
	struct interp *py = arena_alloc(a, sizeof(*py));
	*py = *base;
	struct torch_info *ti = &py->torch;
	ti->present = true;
	ti->version = best->torch_version;
	ti->version_short = best->minor;
	ti->cuda = best->cuda[0] ? best->cuda : NULL;
	ti->cxx11_abi = best->cxx11_abi;
	ti->openmp = best->openmp;
	/* cpp_extension's include_paths(): torch/include and its API headers. */
	ti->include_dirs = (struct strv){0};
	strv_push(a, &ti->include_dirs, os_join(a, best->root, "torch/include"));
	strv_push(a, &ti->include_dirs,
	          os_join(a, best->root, "torch/include/torch/csrc/api/include"));
	ti->lib_dir = os_join(a, best->root, "torch/lib");
	/* What cpp_extension adds besides cannot be asked here (the target's torch does not run
	 * on this machine): the ABI define from the libraries' own ABI (torchflags.c). */
	ti->abi_flags_known = false;
	ti->platform = py->platform;
	return py;
}
