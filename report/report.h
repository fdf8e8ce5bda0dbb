/* report.h: the views of a build result (build_result.h) that are text and files: the summary
 * printed after a build, the self-contained HTML page and the Chrome trace; each a pure function
 * of the model, so a committed model renders the same everywhere (tests/golden/report/). */
#ifndef CUWHEEL_REPORT_REPORT_H
#define CUWHEEL_REPORT_REPORT_H

#include <jansson.h>

#include "report/build_result.h"

/* Returns the summary (in a): a line per kernel archive, a line per selected cell (result,
 * size, time, wheel) and the totals. Never fails. */
char *report_summary(struct arena *a, const struct build_result *m);
/* Returns the steps as Chrome trace events ({"traceEvents": [...]}); json_decref it. */
json_t *report_trace(const struct build_result *m);
/* Renders the self-contained HTML page (grid, timeline, audits, toolchain) into the arena. */
char *report_html(struct arena *a, const struct build_result *m);
/* Returns a JSON document as the report files hold it (indented, keys in order, a final
 * newline), in the arena; NULL when jansson cannot dump it. */
char *report_dump(struct arena *a, const json_t *doc);
/* Writes report.html and report-trace.json into out_dir, and report.json too when with_json.
 * False + diagnostic. */
bool report_write(struct arena *a, struct diag *d, const struct build_result *m,
                  const char *out_dir, bool with_json);

#endif
