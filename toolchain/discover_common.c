/* discover_common.c: what the toolkit search (discover_toolkit.c) and the Python search
 * (discover_python.c) share: the record of every place looked, directory listing, the cache
 * directory, version matching, the explicit tables' paths. */
#include "toolchain/discover.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/os-file.h"
#include "toolchain/discover_internal.h"

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
