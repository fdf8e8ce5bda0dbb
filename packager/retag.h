/* retag.h: changes a wheel's local version label, tags or build tag without recompressing. */
#ifndef CUWHEEL_PACKAGER_RETAG_H
#define CUWHEEL_PACKAGER_RETAG_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/diag.h"
#include "packager/audit.h"
#include "standards/wheel_read.h"

struct retag_opts {
	const char *local;    /* new local label (normalised here); NULL: keep */
	bool remove_local;    /* drop the local label (local must be NULL) */
	const char *python;   /* new python tag set, '.'-joined allowed; NULL: keep */
	const char *abi;      /* new abi tag set; NULL: keep */
	const char *platform; /* new platform tag set; NULL: keep */
	const char *build;    /* new build tag; "" removes it; NULL: keep */
	bool remove_original; /* delete wheel_path once the new wheel is in place (--in-place) */
	const struct extract_limits *limits; /* NULL: defaults */
	bool audited; /* the caller has just audited wheel_path (default checks or stricter) and it
	               * passed: the gate is not run twice (the build's finish step) */
	const char *audit_trace; /* the gate's audit_opts.trace; NULL: none */
	/* The libraries loaded by path the gate tells the audit of (no PyInit_ asked of them);
	 * NULL: none. */
	const struct audit_libraries *libraries;
	const char *torch_requirement; /* replaces METADATA's Requires-Dist: torch...; NULL: keep */
};

/* Writes a copy of wheel_path into out_dir (NULL: the wheel's directory) with the changes of o:
 * payload members are copied compressed as they are (their CRC and RECORD hash are verified
 * on the way), only WHEEL, RECORD and METADATA's Version line (and with torch_requirement its
 * Requires-Dist: torch line) are rewritten, and the .dist-info
 * (and .data) directory is renamed when the version changes. Hostile archives are refused
 * before anything is written; the output is written atomically. *out_path gets the new path.
 * False + diagnostic naming the wheel (and member). */
bool wheel_retag(struct arena *a, struct diag *d, const char *wheel_path,
                 const struct retag_opts *o, const char *out_dir, char **out_path);

#endif
