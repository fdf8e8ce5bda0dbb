/* discover_internal.h: what discovery's entry point (discover.c), its toolkit search
 * (discover_toolkit.c) and its Python search (discover_python.c) share. Not for use outside
 * toolchain/discover*.c; its functions carry the disc_ prefix. */
#ifndef CUWHEEL_TOOLCHAIN_DISCOVER_INTERNAL_H
#define CUWHEEL_TOOLCHAIN_DISCOVER_INTERNAL_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "toolchain/discover.h"

struct pycand; /* a Python to probe: discover_python.c */

/* One discovery run: what it was asked, where it writes, and the Pythons still to probe. */
struct disc {
	struct arena *a;
	struct diag *d;
	const struct discover_request *req;
	const char *cache_dir;
	const char *sysroot; /* "" unless a test moves /usr/local and /opt */
	int timeout_s;       /* for each interpreter probe and nvcc query (probe_timeout) */
	struct discovery *out;
	size_t cap_toolkits;
	struct pycand *cands;
	size_t n_cands, cap_cands;
};

/* Appends to x->out->looked that what ("toolkit", "python") was looked for at where, and the
 * result (fmt). */
void disc_looked_add(struct disc *x, const char *what, const char *where, const char *fmt, ...)
    CW_PRINTF(4, 5);
/* os_list_dir() into out (its names sorted), safe for an empty directory; false when dir
 * cannot be listed. */
bool disc_list_dir(struct arena *a, const char *dir, struct strv *out);
/* Returns true when want ("13.0" or "13.0.88") names the toolkit of that version. */
bool disc_version_matches(const char *want, const char *full, int major, int minor);
/* Returns path, resolved against the project directory when it is relative. */
const char *disc_explicit_path(struct disc *x, const char *path);
/* Fills x->out->toolkits (sorted, newest first) from every place toolkits are looked for,
 * recording each in looked; explicit toolkits that are not usable are warned about. */
void disc_find_toolkits(struct disc *x);
/* Fills x->out->pythons (sorted, newest first) from every place interpreters are looked for,
 * probing them (torch too when torch, read from its files when torch_files) with at most
 * jobs_max at once (0: one per CPU). */
void disc_find_pythons(struct disc *x, bool torch, bool torch_files, int jobs_max);

#endif
