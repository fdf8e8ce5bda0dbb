/* report.c: the text views of a build result, the summary and the Chrome trace, and the report
 * files in the build dir (report.json, report.html, report-trace.json). */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/os-file.h"
#include "base/strbuf.h"
#include "standards/json_values.h"

static const char *human_size(struct arena *a, long long n)
{
	if (n >= 1 << 20)
		return arena_printf(a, "%.1f MB", (double)n / (1 << 20));
	return arena_printf(a, "%.1f kB", (double)n / 1024);
}

/* One selected cell's line: RESULT, SIZE, TIME and WHEEL. TIME is the wall time of the cell's own
 * steps in this build (its kernels are on the kernels line), "up to date" when ninja had nothing
 * to do for it, "-" for a failed cell none of whose steps finished (ninja logs finished steps). */
static void summary_cell(struct arena *a, struct strbuf *sb, const struct result_row *w, int wid)
{
	if (w->state == RESULT_CANNOT_BUILD) {
		sb_printf(sb, "%-*s  %-6s  %-9s  %10s  %s\n", wid, w->name, "skip", "-", "-",
		          w->reason ? w->reason : "");
		return;
	}
	bool ok = w->state == RESULT_OK;
	const char *slash = w->wheel ? strrchr(w->wheel, '/') : NULL;
	const char *wheel = w->wheel ? (slash ? slash + 1 : w->wheel) : "-";
	const char *tm = w->seconds >= 0 ? arena_printf(a, "%9.1fs", w->seconds)
	                 : ok            ? "up to date"
	                                 : "-";
	sb_printf(sb, "%-*s  %-6s  %-9s  %10s  %s\n", wid, w->name, ok ? "ok" : "FAILED",
	          ok ? human_size(a, w->size) : "-", tm, ok ? wheel : "(see the error above)");
}

/* A kernel archive's line: "compiled once" only when it was (now or before: up to date); a
 * failed archive names the step that failed, one that never ran says so. */
static void summary_archive(struct arena *a, struct strbuf *sb, const struct result_row *w)
{
	const char *what;
	if (w->state == RESULT_OK)
		what = w->seconds < 0
		           ? "compiled once: up to date"
		           : arena_printf(a, "compiled once: %.1fs (wall, this run)", w->seconds);
	else if (w->state == RESULT_FAILED)
		what = w->step ? arena_printf(a, "FAILED at %s (see the error above)",
		                              esc_str(a, ESC_TERM, w->step))
		               : "FAILED (see the error above)";
	else if (w->state == RESULT_WAITING)
		what = "not built in this run";
	else
		what = arena_printf(a, "%s", result_state_word(w));
	sb_printf(sb, "kernels  CUDA %-5s %zu object%s, %s\n", w->cuda, w->objects,
	          w->objects == 1 ? "" : "s", what);
}

/* torch-compat's table: per cell, each listed torch with its result and, for a failure, the
 * first error line (escaped, cut at 110 characters); then the range the passes prove. */
static void summary_compat(struct arena *a, struct strbuf *sb, const struct build_result *m,
                           int wid)
{
	bool any = false;
	for (size_t i = 0; i < m->n_rows; i++)
		any |= m->rows[i].compat_done;
	if (!any)
		return;
	sb_printf(sb,
	          "\ntorch-compat (each wheel beside each listed torch: import, then the test "
	          "command)\n%-*s  %-6s  %-6s  %-6s  %s\n",
	          wid, "CELL", "TORCH", "PYTHON", "RESULT", "WHY");
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (!w->compat_done)
			continue;
		const struct compat_result *c = &w->compat;
		for (size_t k = 0; k < c->n_rows; k++) {
			const struct compat_row *r = &c->rows[k];
			const char *why = "";
			if (r->step && r->error)
				why = arena_printf(a, "%s: %.110s", r->step, r->error);
			else if (r->step)
				why = r->step;
			sb_printf(sb, "%-*s  %-6s  %-6s  %-6s  %s\n", wid, w->name, r->torch,
			          r->python ? r->python : "-", r->result,
			          esc_str(a, ESC_TERM, why));
		}
		if (c->requirement)
			sb_printf(sb, "%-*s  proven: %s (built against torch %s)\n", wid, w->name,
			          c->requirement, c->torch ? c->torch : "?");
	}
}

char *report_summary(struct arena *a, const struct build_result *m)
{
	struct strbuf sb = {0};
	sb_putc(&sb, '\n');
	size_t wid = 4;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (w->is_archive)
			summary_archive(a, &sb, w);
		else if (strlen(w->name) > wid)
			wid = strlen(w->name);
	}
	sb_printf(&sb, "\n%-*s  %-6s  %-9s  %10s  %s\n", (int)wid, "CELL", "RESULT", "SIZE", "TIME",
	          "WHEEL");
	for (size_t i = 0; i < m->n_rows; i++)
		if (!m->rows[i].is_archive && m->rows[i].state != RESULT_NOT_SELECTED)
			summary_cell(a, &sb, &m->rows[i], (int)wid);
	summary_compat(a, &sb, m, (int)wid);
	size_t ok, failed, skipped;
	result_count(m, &ok, &failed, &skipped);
	sb_printf(&sb, "\n%zu built, %zu failed, %zu not buildable here; %.1fs; wheels in %s\n", ok,
	          failed, skipped, m->wall_seconds, m->dist_dir ? m->dist_dir : "?");
	sb_printf(&sb, "report: %s\n",
	          os_join(a, m->build_dir ? m->build_dir : ".", "report.json"));
	return sb_to_arena(&sb, a);
}

json_t *report_trace(const struct build_result *m)
{
	json_t *ev = json_array();
	json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name",
	                                    "ph", "M", "pid", 1, "tid", 0, "args", "name",
	                                    "cuwheel build"));
	for (int l = 0; l < m->n_lanes; l++) {
		char name[32];
		snprintf(name, sizeof(name), "core %d", l + 1);
		json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name",
		                                    "thread_name", "ph", "M", "pid", 1, "tid", l,
		                                    "args", "name", name));
	}
	for (size_t i = 0; i < m->n_steps; i++) {
		const struct result_step *s = &m->steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(s->name));
		json_object_set_new(o, "cat", json_string(s->kernels ? "kernels" : "cell"));
		json_object_set_new(o, "ph", json_string("X"));
		json_object_set_new(o, "ts", json_integer((json_int_t)s->start_ms * 1000));
		json_object_set_new(o, "dur",
		                    json_integer((json_int_t)(s->end_ms - s->start_ms) * 1000));
		json_object_set_new(o, "pid", json_integer(1));
		json_object_set_new(o, "tid", json_integer(s->lane));
		json_object_set_new(o, "args",
		                    json_pack("{s:s, s:s}", "row", s->row, "output", s->output));
		json_array_append_new(ev, o);
	}
	json_t *root = json_object();
	json_object_set_new(root, "traceEvents", ev);
	json_object_set_new(root, "displayTimeUnit", json_string("ms"));
	return root;
}

char *report_dump(struct arena *a, const json_t *doc)
{
	char *text =
	    json_dump_text(a, doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	return text ? arena_printf(a, "%s\n", text) : NULL;
}

static bool write_doc(struct arena *a, struct diag *d, const char *path, json_t *doc)
{
	char *text = report_dump(a, doc);
	json_decref(doc);
	if (!text) {
		diag_path(d, DIAG_ERROR, path, "cannot render the report");
		return false;
	}
	return os_write_atomic(d, path, text, strlen(text), 0644);
}

bool report_write(struct arena *a, struct diag *d, const struct build_result *m,
                  const char *out_dir, bool with_json)
{
	if (!os_mkdir_p(d, out_dir))
		return false;
	if (with_json && !write_doc(a, d, os_join(a, out_dir, "report.json"), result_to_json(m)))
		return false;
	char *html = report_html(a, m);
	return write_doc(a, d, os_join(a, out_dir, "report-trace.json"), report_trace(m)) &&
	       os_write_atomic(d, os_join(a, out_dir, "report.html"), html, strlen(html), 0644);
}
