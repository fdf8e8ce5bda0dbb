/* wheel.h: writes a wheel from a staged tree and the project's metadata (the packager). */
#ifndef CUWHEEL_PACKAGER_WHEEL_H
#define CUWHEEL_PACKAGER_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/config.h"

/* The default timestamp of every member when SOURCE_DATE_EPOCH is not given: 1980-01-01. */
#define WHEEL_EPOCH_DEFAULT INT64_C(315532800)

struct pack_opts {
	const char *staged_dir;          /* its contents become the wheel's root */
	const char *project_dir;         /* license files are read relative to it */
	const struct project_meta *meta; /* what METADATA and entry_points.txt are written from */
	const char *python, *abi,
	    *platform;             /* tag sets, '.'-joined allowed: "cp312", "cp312", ... */
	const char *local;         /* local label ("cu130"); NULL: meta->version_local */
	const char *build;         /* build tag (starts with a digit) or NULL */
	int compression;           /* 0 stored, 1..9 deflate level */
	const char *out_dir;       /* created if missing */
	bool root_is_purelib;      /* false for wheels with extension modules */
	int64_t source_date_epoch; /* member timestamps (UTC), clamped to 1980; <0: default */
	int threads;               /* deflate threads; 0: one per CPU */
	const char *generator;     /* WHEEL's Generator; NULL: "cuwheel <version>" */
};

/* Packs o->staged_dir into out_dir/{name}-{version}(-{build})?-{tags}.whl: members sorted with
 * the .dist-info last, modes 0644/0755, fixed timestamps, RECORD hashed in the same pass as
 * compression. Symbolic links in the staged tree are refused (a wheel cannot hold them).
 * Written to a hidden temp file beside the target and renamed when complete; on failure or a
 * signal nothing is left and an existing wheel is untouched. Stale temp files of this wheel
 * left by a killed run (older than this process) are removed first. *out_path gets the path.
 * False + diagnostic naming the file. */
bool wheel_pack(struct arena *a, struct diag *d, const struct pack_opts *o, char **out_path);

#endif
