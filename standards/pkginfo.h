/* pkginfo.h: core metadata text (an sdist's PKG-INFO) read as headers kept verbatim, and the
 * METADATA written from it with the wheel's version and what [project] overrides. */
#ifndef CUWHEEL_STANDARDS_PKGINFO_H
#define CUWHEEL_STANDARDS_PKGINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/project.h"

struct pkginfo_header {
	const char *name;  /* as written ("Requires-Dist") */
	const char *value; /* unfolded: continuation lines joined with '\n', indentation kept */
	const char *raw;   /* the header's lines as written, with their line breaks */
	size_t raw_len;
	int line; /* 1-based */
};

struct pkginfo {
	struct pkginfo_header *v;
	size_t n;
	const char *body; /* after the blank line (the long description), or NULL */
	size_t body_len;
};

/* Parses RFC 822-style core metadata (Metadata-Version 1.0 to 2.x). Returns false after a
 * diagnostic at src's file:line:col for a line that is neither a header nor a continuation, a
 * NUL byte, or a missing Metadata-Version / Name / Version. */
bool pkginfo_parse(struct arena *a, struct diag *d, const struct source *src, struct pkginfo *out);
/* Checks p (parsed from src) as core metadata 2.4 defines it (2.5's Import-Name known too):
 * UTF-8 throughout, known fields only, each single-use field once, no 2.x field newer than the
 * Metadata-Version (License-File and License-Expression accepted from 2.1: setuptools and
 * hatchling wrote them there), one-line values but for Description, License and the people
 * fields, and valid values for Metadata-Version, Name, Version, Provides-Extra,
 * License-Expression (SPDX), Requires-Python, Description-Content-Type, Dynamic, Project-URL
 * ("label, URL") and the start of Requires-Dist, Provides-Dist and Obsoletes-Dist (a PEP 508
 * name). Returns false after a diagnostic at src's path:line:col for each problem. */
bool pkginfo_validate(struct arena *a, struct diag *d, const struct source *src,
                      const struct pkginfo *p);
/* Returns the first header called name (case-insensitive), or NULL. */
const struct pkginfo_header *pkginfo_get(const struct pkginfo *p, const char *name);
/* Renders METADATA from m->pkginfo: every header kept byte for byte except Version (set to
 * `version`) and the groups in m->pkginfo_replaced, which come from `rendered` (METADATA
 * rendered from the project model); m->dependencies beyond the PKG-INFO ones are appended as
 * Requires-Dist. Returns NULL + diagnostic naming `where`. */
char *pkginfo_render(struct arena *a, struct diag *d, const char *where,
                     const struct project_meta *m, const char *version, const char *rendered,
                     size_t rendered_len, size_t *len);
/* Returns the PKGINFO_* group bit of a header name (0: kept as written). */
unsigned pkginfo_group_of(const char *header);

#endif
