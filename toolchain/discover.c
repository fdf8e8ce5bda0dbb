/* discover.c: discovery's entry point and lookups, and what its toolkit search
 * (discover_toolkit.c) and Python search (discover_python.c) share: the record of every
 * place looked, directory listing, the cache directory, the explicit tables' paths. */
#include "toolchain/discover.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/os.h"
#include "toolchain/discover_internal.h"
#include "toolchain/probe.h"

void disc_looked_add(struct disc *x, const char *what, const char *where, const char *fmt, ...)
{
	struct discovery *ds = x->out;
	if (ds->n_looked == ds->cap_looked) {
		size_t cap = ds->cap_looked ? ds->cap_looked * 2 : 32;
		ds->looked =
		    arena_realloc(x->a, ds->looked, ds->n_looked, cap, sizeof(*ds->looked));
		ds->cap_looked = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	ds->looked[ds->n_looked++] =
	    (struct looked){what, arena_strdup(x->a, where), arena_vprintf(x->a, fmt, ap)};
	va_end(ap);
}

const char *cuwheel_cache_dir(struct arena *a, const char *const *env)
{
	const char *v;
	if ((v = env_nonempty(env, "CUWHEEL_CACHE_DIR")))
		return arena_strdup(a, v);
	if ((v = env_nonempty(env, "XDG_CACHE_HOME")))
		return os_join(a, v, "cuwheel");
	if ((v = env_nonempty(env, "HOME")))
		return os_join(a, v, ".cache/cuwheel");
	return "/tmp/cuwheel-cache";
}

/* os_list_dir, with the vector allocated first: os_list_dir qsorts out->v even when the
 * directory is empty, and qsort(NULL, 0) is undefined behaviour (UBSan stops there). */
bool disc_list_dir(struct arena *a, const char *dir, struct strv *out)
{
	if (!out->v) {
		strv_push(a, out, "");
		out->n = 0;
	}
	return os_list_dir(a, dir, out);
}

/* True when want ("13.0" or "13.0.88") names the toolkit. */
bool disc_version_matches(const char *want, const char *full, int major, int minor)
{
	char mm[32];
	snprintf(mm, sizeof(mm), "%d.%d", major, minor);
	return strcmp(want, mm) == 0 || strcmp(want, full) == 0;
}

/* Paths in the pyproject's explicit tables are relative to the project, not to where cuwheel
 * was started. */
const char *disc_explicit_path(struct disc *x, const char *path)
{
	if (path[0] == '/' || !x->req->project_dir)
		return path;
	return os_join(x->a, x->req->project_dir, path);
}

/* ---- entry points ---- */

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
	disc_find_pythons(&x, o->probe_torch, o->jobs);
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
