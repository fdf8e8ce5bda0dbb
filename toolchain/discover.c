/* discover.c: discovery's entry point (the toolkit search, discover_toolkit.c, and the Python
 * search, discover_python.c) and the lookups in what it found. */
#include "toolchain/discover.h"

#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/os-file.h"
#include "toolchain/discover_internal.h"
#include "toolchain/probe.h"

bool discover_run(struct arena *a, struct diag *d, const struct discover_request *r,
                  const char *cache_dir, const struct discover_opts *o, struct discovery *out)
{
	static const struct discover_opts defaults = {0};
	if (!o)
		o = &defaults;
	memset(out, 0, sizeof(*out));
	if (cache_dir && !os_mkdir_p(d, cache_dir))
		return false;
	struct disc x = {.a = a, .d = d, .req = r, .cache_dir = cache_dir, .out = out};
	x.sysroot = o->sysroot ? o->sysroot : "";
	const char *bad;
	x.timeout_s = probe_timeout(r->env, &bad);
	if (bad)
		diag_msg(
		    d, DIAG_WARNING,
		    "CUWHEEL_PROBE_TIMEOUT='%s' is not a number of seconds (1 to 86400): using %d",
		    bad, x.timeout_s);
	disc_find_toolkits(&x);
	disc_find_pythons(&x, o->probe_torch, o->probe_torch && o->torch_files, o->jobs);
	/* The parts for other platforms' wheels: an unreadable cache is as good as none. */
	struct diag quiet = {0};
	const char *cache = cuwheel_cache_dir(a, r->env);
	if (!cross_list(a, &quiet, cache, &out->cross, &out->n_cross))
		out->n_cross = 0;
	for (size_t i = 0; i < out->n_cross; i++)
		disc_looked_add(&x, "cross", out->cross[i].root, "found %s %s",
		                out->cross[i].platform, out->cross[i].id);
	return true;
}

const struct toolkit *discover_toolkit(const struct discovery *ds, const char *version)
{
	for (size_t i = 0; i < ds->n_toolkits; i++) {
		const struct toolkit *tk = &ds->toolkits[i];
		if (disc_version_matches(version, tk->version, tk->major, tk->minor))
			return tk;
	}
	return NULL;
}

const struct interp *discover_python(const struct discovery *ds, const char *version)
{
	int major, minor, n = 0;
	if (sscanf(version, "%d.%d%n", &major, &minor, &n) != 2)
		return NULL;
	const char *rest = version + n;
	bool ft = strcmp(rest, "t") == 0;
	if (*rest && !ft)
		return NULL;
	for (size_t i = 0; i < ds->n_pythons; i++) {
		const struct interp *ip = &ds->pythons[i];
		bool ipft = ip->freethreaded || strchr(ip->abiflags, 't');
		if (ip->major == major && ip->minor == minor && ipft == ft)
			return ip;
	}
	return NULL;
}

const struct interp *discover_python_torch(const struct discovery *ds, const char *version,
                                           const char *torch)
{
	const struct interp *first = discover_python(ds, version);
	if (!first || !torch)
		return first;
	for (const struct interp *ip = first; ip < ds->pythons + ds->n_pythons; ip++) {
		if (ip->major != first->major || ip->minor != first->minor ||
		    ip->freethreaded != first->freethreaded)
			break;
		if (ip->torch.present && ip->torch.version_short &&
		    strcmp(ip->torch.version_short, torch) == 0)
			return ip;
	}
	return first;
}

const struct interp *discover_torch(const struct discovery *ds, const char *torch)
{
	for (size_t i = 0; torch && i < ds->n_pythons; i++) {
		const struct torch_info *t = &ds->pythons[i].torch;
		if (t->present && t->version_short && strcmp(t->version_short, torch) == 0)
			return &ds->pythons[i];
	}
	return NULL;
}

bool toolkit_has_sm(const struct toolkit *tk, int sm)
{
	for (size_t i = 0; i < tk->n_sm; i++)
		if (tk->sm[i] == sm)
			return true;
	return false;
}
