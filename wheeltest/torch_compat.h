/* torch_compat.h: torch-compatibility discovery ([tool.cuwheel.test] torch-compat): an ordinary
 * torch wheel tried with each listed torch, the table of what loaded and passed, and the range
 * of torch minors it proved (torch-requires = "tested"). */
#ifndef CUWHEEL_WHEELTEST_TORCH_COMPAT_H
#define CUWHEEL_WHEELTEST_TORCH_COMPAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "wheeltest/wheeltest.h"

/* One (wheel, torch) entry of the table: the result over the wheel's Python(s) with it. */
struct compat_row {
	const char *torch;         /* "2.9" as listed */
	const char *torch_version; /* what the interpreter has ("2.9.1+cu128"), or NULL */
	const char *python;        /* "3.12"; "-" when skipped for the whole wheel */
	const char *result;        /* "pass", "fail", "skip" */
	const char *step;          /* the failing step ("import", "test command", "pip install"),
	                            * or a skip's reason; NULL on pass */
	const char *error;         /* the first error line (escaped when printed), or NULL */
	double seconds;
};

/* The outcome for one wheel: the table and the proven range. */
struct compat_result {
	const char *wheel;       /* file name */
	const char *torch;       /* "2.11": the torch it was built against */
	const char *requirement; /* "torch>=2.10,<2.12": the contiguous minors that passed, the
	                          * build's own included */
	struct compat_row *rows;
	size_t n_rows;
};

/* Tries wheel (an ordinary torch wheel) with each torch of o->cfg->test.torch_compat (o's
 * wheels and compat_torch are set here) and fills r. False + diagnostic only when it could
 * not be organised; failures are rows. */
bool torch_compat_run(struct arena *a, struct diag *d, const struct wheeltest_opts *o,
                      const char *wheel, struct compat_result *r);
/* The requirement proven by the rows: torch>=LO,<HI+1 over the minors around own (passed, or
 * own) with no gap; a minor not tried is a gap. */
const char *torch_compat_range(struct arena *a, const char *own, const struct compat_row *rows,
                               size_t n_rows);
/* r as compat.json's document ({"format": 1, ...}); json_decref it. */
json_t *torch_compat_to_json(const struct compat_result *r);
/* Reads compat.json's document into r (arena strings). False + diagnostic naming path when it
 * is not one of format 1. */
bool torch_compat_from_json(struct arena *a, struct diag *d, const char *path, const json_t *doc,
                            struct compat_result *r);

#endif
