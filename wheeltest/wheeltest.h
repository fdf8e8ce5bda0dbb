/* wheeltest.h: installs wheels into fresh venvs of the matching Pythons and runs the project's
 * test command there, several (wheel, Python) pairs at once. */
#ifndef CUWHEEL_WHEELTEST_WHEELTEST_H
#define CUWHEEL_WHEELTEST_WHEELTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "matrix/config.h"
#include "toolchain/discover.h"

enum wheeltest_result {
	WHEELTEST_PASS,
	WHEELTEST_FAIL, /* the venv, the install or the test command failed */
	WHEELTEST_SKIP, /* this machine cannot run it (platform, no such Python, not selected) */
};

/* One (wheel, Python) pair: planned by wheeltest_plan, filled in by wheeltest_run. */
struct wheeltest_job {
	const char *wheel;       /* path as given */
	const char *filename;    /* basename */
	const struct interp *py; /* NULL for a skip that concerns the whole wheel */
	const char *py_key;      /* "3.12", "3.13t"; "-" when py is NULL */
	enum wheeltest_result result;
	const char *reason; /* skip reason, or the failing step ("pip install", "test command") */
	int exit_code;      /* of the failing step */
	const char *output; /* captured output of the failing step (last lines), or NULL */
	double seconds;
	const char *venv; /* kept venv (--keep-venvs), else NULL */
	/* A wheel of another architecture, run by qemu-user (cross_venv.h): the qemu program
	 * and the platform tag pip installs for; NULL for this machine's wheels. */
	const char *qemu, *cross_platform;
	/* A cross job of a torch wheel: the torch "MAJOR.MINOR" pip installs with it
	 * (torch==2.11.*: the one it was built against; a cross Python has no torch of its own). */
	const char *cross_torch;
};

struct wheeltest_opts {
	const struct config *cfg;
	const struct discovery *ds;
	const struct strv *wheels;     /* paths */
	const struct strv *pythons;    /* only these keys ("3.12", "3.13t"); empty/NULL: all */
	const struct strv *find_links; /* extra find-links dirs (absolute or cwd-relative) */
	int jobs;                      /* pairs run at once; <= 0: one per CPU */
	bool keep_venvs;
	size_t output_lines;    /* lines of failing output kept; 0: 60 */
	const char *const *env; /* the environment (base/env.h): TMPDIR, PATH, PIP_INDEX_URL,
	                         * PIP_EXTRA_INDEX_URL */
	/* torch-compat: "2.9": each ordinary torch wheel (Requires-Dist torch>=X.Y,<X.Y+1) is
	 * tried with the interpreter of its Python whose torch is this one instead of its own, and
	 * the project's modules are imported before the test command. NULL: the usual test. */
	const char *compat_torch;
	/* Called (serialised, from any thread) when a pair finishes; may be NULL. */
	void (*on_done)(void *user, const struct wheeltest_job *j);
	void *user;
};

/* Turns each wheel into its (wheel, Python) pairs: cpXY-cpXY and cpXY-cpXYt pick that
 * interpreter, cpXY-abi3 / pyXY every matrix Python >= X.Y; a Linux wheel of another
 * architecture, the installed cross Pythons of it (ds->cross) under qemu-user; wheels this
 * machine cannot run are planned as skips with the reason. False + diagnostic when a wheel name
 * cannot be parsed. */
bool wheeltest_plan(struct arena *a, struct diag *d, const struct wheeltest_opts *o,
                    struct wheeltest_job **jobs, size_t *n_jobs);
/* Runs every non-skipped job (o->jobs at a time), filling results. False + diagnostic only when
 * the run could not be organised (no test command, no temp dir); failing tests are results. */
bool wheeltest_run(struct arena *a, struct diag *d, const struct wheeltest_opts *o,
                   struct wheeltest_job *jobs, size_t n_jobs);
/* The line of a failing job's output that says why (an "undefined symbol" line, else the last
 * exception line "XError: ...", else the last non-empty line), or NULL for none. */
const char *wheeltest_first_error(struct arena *a, const char *output);
/* The torch "MAJOR.MINOR" a wheel was built against (its local label's ptXYY, else its
 * Requires-Dist: torch>=X.Y), or NULL. */
const char *wheeltest_wheel_torch(struct arena *a, const char *wheel);
/* Returns "pass", "fail" or "skip". */
const char *wheeltest_result_name(enum wheeltest_result r);
/* What a job's Python is called in messages: "3.12.1", or for a stable-ABI torch wheel tested
 * with several torches, "3.12.1 with torch 2.12.0+cu130". */
const char *wheeltest_job_python(struct arena *a, const struct wheeltest_job *j);

#endif
