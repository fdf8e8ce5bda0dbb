/* index.h: a static simple repository (PEP 503 HTML + PEP 691 JSON, PEP 658 sidecars) for a
 * dist directory: the root lists every wheel, SITE/<local>/ only the wheels of that variant.
 * Each wheel is stored once: in its variant's directory (a wheel without a local label at the
 * root), the root's page linking to it there; with links, nowhere (the index links to where
 * the wheels are published, such as a GitHub release's assets). */
#ifndef CUWHEEL_PACKAGER_INDEX_H
#define CUWHEEL_PACKAGER_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "packager/audit.h"

struct index_opts {
	const char *dist_dir;    /* the wheels (*.whl, hidden files ignored) */
	const char *site_dir;    /* replaced as a whole; created when missing */
	bool copy;               /* copy the wheels; default: hard-link when on one filesystem */
	const char *links;       /* URL: each wheel is listed at LINKS/<its path under dist_dir>
	                          * and none is put into the site; NULL: the site holds them */
	const char *audit_trace; /* the gate's audit_opts.trace; NULL: none */
	/* The libraries loaded by path the gate tells the audit of (no PyInit_ asked of them);
	 * NULL: none. */
	const struct audit_libraries *libraries;
};

/* One wheel as the index lists it. */
struct index_file {
	const char *path;            /* in the dist dir */
	const char *filename;        /* basename */
	const char *rel;             /* its path under the dist dir: FILE or DIR/FILE */
	const char *project;         /* PEP 503 normalised name */
	const char *display_name;    /* METADATA Name */
	const char *version;         /* normalised, local label included */
	const char *local;           /* local label ("cu130") or NULL */
	const char *requires_python; /* METADATA Requires-Python or NULL */
	const char *metadata;        /* METADATA bytes */
	size_t metadata_len;
	char sha256[65];          /* of the wheel, hex */
	char metadata_sha256[65]; /* of METADATA, hex */
	uint64_t size;
};

struct index_summary {
	struct index_file *files; /* sorted by project, then file name */
	size_t n_files;
	size_t n_projects;
	struct strv variants; /* local labels with their own sub-index, sorted */
	bool empty;           /* failed because DIST holds no wheel */
};

/* Reads every wheel of o->dist_dir and of its subdirectories (one level: one per release)
 * through the hardened zip reader (name, METADATA, Name and
 * Version agreeing with the file name) and writes the site into a temp dir beside
 * o->site_dir, then swaps it in (renameat2 RENAME_EXCHANGE; else two renames) and removes the
 * old one, so a reader sees the old index or the new one. Any refused wheel (or one file name
 * twice), or a write error:
 * false + diagnostic and the existing site untouched. An existing site_dir must be empty or an
 * earlier cuwheel index (it holds .cuwheel-index). No wheel at all: false and out->empty. */
bool index_write(struct arena *a, struct diag *d, const struct index_opts *o,
                 struct index_summary *out);

#endif
