/* probe.h: asks Python interpreters what a build needs from them (one run each, in parallel),
 * with a versioned on-disk cache keyed by interpreter path and mtime. */
#ifndef CUWHEEL_TOOLCHAIN_PROBE_H
#define CUWHEEL_TOOLCHAIN_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "toolchain/discover.h"

/* Bump when the probe script or the cache layout changes: older cache files are rebuilt. */
#define PROBE_CACHE_FORMAT 6

struct probe_job {
	const char *path; /* the interpreter to run */
	bool torch;       /* also try `import torch` */
	/* With torch: read torch's answers from its files instead (probe.py's torch-files; the
	 * cache answers with an import's answer where it holds one, and keeps no read one). */
	bool torch_files;
	/* Filled by probe_run: */
	bool ok;                /* info is valid */
	bool cached;            /* the answer came from the cache */
	const char *error;      /* why not ok: "exit 1: ModuleNotFoundError: ..." */
	struct interp info;     /* found_by is left NULL */
	const char *executable; /* sys.executable */
};

/* Probes every job, running those not answered by the cache in parallel (at most `jobs` at
 * once; 0: one per CPU). cache_dir may be NULL (no cache); it must exist. Failures are
 * recorded per job (one that runs longer than timeout_s seconds is killed, and its error says
 * so); cache write failures are warnings on d. */
void probe_run(struct arena *a, struct diag *d, const char *cache_dir, struct probe_job *jobs,
               size_t n, int jobs_max, int timeout_s);
/* The seconds an interpreter probe or a toolkit's nvcc may take before it is killed:
 * CUWHEEL_PROBE_TIMEOUT (a positive integer) or 300 (torch's first import on a cold disk takes
 * tens of seconds; a hung interpreter must not hang discovery). NULL *bad, or the value that
 * was not a positive integer (the default is used). */
int probe_timeout(const char *const *env, const char **bad);
/* Returns the cache file of an interpreter: <cache_dir>/probe-<hash of path>.json. */
char *probe_cache_path(struct arena *a, const char *cache_dir, const char *interp);
/* Returns a 64-bit FNV-1a hash of s as 16 hex digits (stable file names for cache entries). */
char *probe_hash(struct arena *a, const char *s);

#endif
