/* wheel.h: writes a wheel from a staged tree and the project's metadata (the packager). */
#ifndef CUWHEEL_PACKAGER_WHEEL_H
#define CUWHEEL_PACKAGER_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/project.h"

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
	bool own_data;             /* the staged tree may hold the wheel's own
	                            * <name>-<version>.data (asked for by `pack --data`, never by a
	                            * build); any other top-level *.data is refused regardless */
};

/* Packs o->staged_dir into out_dir/{name}-{version}(-{build})?-{tags}.whl: members sorted with
 * the .dist-info last, modes 0644/0755, fixed timestamps, RECORD hashed in the same pass as
 * compression. Symbolic links in the staged tree are refused (a wheel cannot hold them).
 * Written to a hidden temp file beside the target and renamed when complete; on failure or a
 * signal nothing is left and an existing wheel is untouched. Stale temp files of this wheel
 * left by a killed run (older than this process) are removed first. *out_path gets the path.
 * False + diagnostic naming the file. */
bool wheel_pack(struct arena *a, struct diag *d, const struct pack_opts *o, char **out_path);

/* The zip writer under wheel_pack, shared with retag. Members are written in the order they
 * are added; file and memory members are deflated by this code (large ones in parallel
 * chunks, hashed in the same pass) and handed to libzip already compressed. */
struct wheel_writer;
struct zip;

/* Starts writing final_path: a hidden temp file beside it, registered for signal cleanup.
 * level 0 stores, 1..9 deflates; threads 0 = one per CPU; members get the timestamp of
 * `epoch` (UTC, clamped to 1980..2107). NULL + diagnostic on error. */
struct wheel_writer *wheel_writer_begin(struct arena *a, struct diag *d, const char *final_path,
                                        int level, int threads, int64_t epoch);
/* Adds the regular file at path (size as stat'ed; the file must not change) as member name,
 * mode 0755 when exec else 0644. */
bool wheel_writer_add_file(struct wheel_writer *w, const char *name, const char *path,
                           uint64_t size, bool exec);
/* Adds len bytes at data (kept, not copied, until the end) as member name, mode 0644.
 * mtime: NULL for the writer's timestamp, else this time_t (as libzip encodes: local time). */
bool wheel_writer_add_mem(struct wheel_writer *w, const char *name, const void *data, size_t len,
                          const int64_t *mtime);
/* Adds member index of the open archive src as name without recompressing it: method, CRC,
 * external attributes (opsys, attrs) and mtime are given; hash/size are what RECORD lists. */
bool wheel_writer_add_copy(struct wheel_writer *w, const char *name, struct zip *src,
                           uint64_t index, uint16_t method, uint8_t opsys, uint32_t attrs,
                           int64_t mtime, const char *hash, uint64_t size);
/* Adds RECORD as name: rendered when libzip reaches it, from the hashes of every member added
 * before it; it must be the last member. */
bool wheel_writer_add_record(struct wheel_writer *w, const char *name, const int64_t *mtime);
/* Finishes the zip, makes it mode 0644 (less the umask) and renames it into place. On failure
 * the temp file is removed; false + diagnostic. The writer is gone either way. */
bool wheel_writer_commit(struct wheel_writer *w);
/* Abandons the zip and removes the temp file. */
void wheel_writer_abort(struct wheel_writer *w);
/* Removes hidden temp files of final_path (".NAME.tmp.XXXXXX" beside it) last modified before
 * before_ns (ns since the epoch): what a killed run (SIGKILL) could leave. Returns how many. */
int wheel_tmp_sweep(struct arena *a, const char *final_path, int64_t before_ns);

#endif
