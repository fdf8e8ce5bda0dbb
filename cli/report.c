/* report.c: gathers a build's report (report.json, the last run in .ninja_log, the wheels'
 * audits, the toolchain) and writes it as HTML, JSON and a Chrome trace. */
#include "cli/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os.h"
#include "cli/ninja_log.h"
#include "standards/json_values.h"

/* The row and step name of a ninja output, from the paths buildgraph gives them. */
static void classify(struct arena *a, const struct report *r, const char *out,
                     struct report_step *s)
{
	s->output = out;
	s->row = "other";
	s->name = out;
	if (!strncmp(out, "kernels/", 8)) {
		s->kernels = true;
		const char *dir_end = strchr(out + 8, '/');
		size_t dl = dir_end ? (size_t)(dir_end - out) : strlen(out);
		s->row = arena_strndup(a, out, dl);
		size_t i;
		json_t *ar;
		json_array_foreach(r->archives, i, ar)
		{
			const char *path = json_string_value(json_object_get(ar, "archive"));
			const char *cuda = json_string_value(json_object_get(ar, "cuda"));
			if (path && cuda && !strncmp(path, out, dl) && path[dl] == '/')
				s->row = arena_printf(a, "kernels CUDA %s", cuda);
		}
		const char *obj = strstr(out, "/obj/");
		if (obj) {
			const char *src = obj + 5;
			const char *slash = strrchr(src, '/');
			char *srcp =
			    arena_strndup(a, src, slash ? (size_t)(slash - src) : strlen(src));
			const char *dot = strrchr(srcp, '.');
			s->name = arena_printf(a, "%s %s",
			                       dot && !strcmp(dot, ".cu") ? "nvcc" : "cc", srcp);
		} else if (strstr(out, ".a")) {
			s->name = "ar";
		}
		return;
	}
	if (!strncmp(out, "cells/", 6)) {
		const char *id = out + 6;
		const char *slash = strchr(id, '/');
		if (!slash)
			return;
		s->row = arena_strndup(a, id, (size_t)(slash - id));
		const char *rest = slash + 1;
		size_t n = strlen(rest);
		if (!strncmp(rest, "obj/", 4))
			s->name = "cc binding";
		else if (!strncmp(rest, "lib/", 4))
			s->name = "link";
		else if (!strcmp(rest, "stage.stamp"))
			s->name = "stage";
		else if (n > 4 && !strcmp(rest + n - 4, ".whl"))
			s->name = "pack";
		else if (!strcmp(rest, "final"))
			s->name = "audit";
		else if (!strcmp(rest, "tested"))
			s->name = "test";
	}
}

static int step_cmp(const void *x, const void *y)
{
	const struct report_step *a = x, *b = y;
	if (a->start_ms != b->start_ms)
		return a->start_ms < b->start_ms ? -1 : 1;
	return a->end_ms < b->end_ms ? -1 : a->end_ms > b->end_ms;
}

/* The last ninja run's entries: ninja appends an entry when a step ends, so end times rise
 * within one run and fall back where the next run begins. */
static void load_steps(struct arena *a, struct diag *d, struct report *r)
{
	struct ninja_log_entry *e;
	size_t n;
	if (!ninja_log_read(a, d, r->build_dir, NINJA_LOG_LAST_RUN, &e, &n))
		diag_msg(d, DIAG_WARNING, "the report has no timeline");
	struct report_step *v = arena_calloc(a, n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i].start_ms = e[i].start_ms;
		v[i].end_ms = e[i].end_ms;
		classify(a, r, e[i].output, &v[i]);
	}
	qsort(v, n, sizeof(*v), step_cmp);
	/* Lanes: each step on the first core free when it starts. */
	long long *lane_end = arena_calloc(a, n + 1, sizeof(long long));
	int lanes = 0;
	for (size_t i = 0; i < n; i++) {
		int l = 0;
		while (l < lanes && lane_end[l] > v[i].start_ms)
			l++;
		if (l == lanes)
			lanes++;
		lane_end[l] = v[i].end_ms;
		v[i].lane = l;
		if (v[i].end_ms > r->span_ms)
			r->span_ms = v[i].end_ms;
	}
	r->steps = v;
	r->n_steps = n;
	r->n_lanes = lanes;
}

static const char *first_line_of(struct cli *c, const char *const *argv)
{
	struct os_run run = {.argv = argv, .capture = true, .probe = true};
	struct strbuf out = {0};
	int status = 1;
	struct diag quiet = {0}; /* a probe: a tool that cannot answer is shown as unknown */
	const char *res = NULL;
	if (os_run(&quiet, &run, &out, &status) && status == 0)
		res = esc_mem(&c->arena, ESC_TERM, sb_str(&out), strcspn(sb_str(&out), "\r\n"));
	sb_release(&out);
	return res;
}

bool report_load(struct cli *c, const struct plan_ctx *pc, struct report *r)
{
	const char *path = os_join(&c->arena, pc->cfg.build_dir, "report.json");
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		memset(r, 0, sizeof(*r));
		diag_path(&c->diag, DIAG_ERROR, path, "no build to report on (%s)", err.text);
		diag_msg(&c->diag, DIAG_HINT, "run `cuwheel build` first");
		return false;
	}
	report_from(c, pc, root, r);
	return true;
}

void report_from(struct cli *c, const struct plan_ctx *pc, json_t *root, struct report *r)
{
	struct arena *a = &c->arena;
	memset(r, 0, sizeof(*r));
	r->build_dir = pc->cfg.build_dir;
	r->root = root;
	r->project = json_string_value(json_object_get(r->root, "project"));
	r->version = json_string_value(json_object_get(r->root, "version"));
	r->wall_seconds = json_number_value(json_object_get(r->root, "wall_seconds"));
	r->archives = json_object_get(r->root, "archives");
	if (!json_is_array(r->archives))
		r->archives = NULL;
	json_t *cells = json_object_get(r->root, "cells");
	r->n_cells = json_array_size(cells);
	r->cells = arena_calloc(a, r->n_cells + 1, sizeof(*r->cells));
	const struct plan *p = &pc->plan;
	for (size_t i = 0; i < r->n_cells; i++) {
		json_t *j = json_array_get(cells, i);
		struct report_cell *rc = &r->cells[i];
		rc->id = json_string_value(json_object_get(j, "id"));
		rc->result = json_string_value(json_object_get(j, "result"));
		rc->reason = json_string_value(json_object_get(j, "reason"));
		rc->wheel = json_string_value(json_object_get(j, "wheel"));
		rc->size = json_integer_value(json_object_get(j, "size"));
		json_t *secs = json_object_get(j, "seconds");
		rc->seconds = json_is_number(secs) ? json_number_value(secs) : -1;
		if (!rc->id)
			rc->id = "?";
		if (!rc->result)
			rc->result = "?";
		for (size_t k = 0; k < p->n_cells; k++)
			if (!strcmp(p->cells[k].id, rc->id))
				rc->cell = &p->cells[k];
		/* The audit `internal finish` ran, as it kept it: a wheel is audited once. */
		rc->audited = audit_result_from_json(a, json_object_get(j, "audit"), &rc->audit);
	}
	load_steps(a, &c->diag, r);
	const char *cc = env_nonempty(c->env, "CC");
	const char *argv[] = {cc ? cc : "cc", "--version", NULL};
	r->cc_version = first_line_of(c, argv);
}

void report_free(struct report *r)
{
	json_decref(r->root);
	r->root = NULL;
}

static json_t *audit_json(const struct audit_result *a)
{
	json_t *j = json_object();
	json_object_set_new(j, "ok", json_boolean(a->ok));
	json_object_set_new(j, "platform_tag", json_str_or_null(a->platform_tag));
	json_object_set_new(j, "policy", json_str_or_null(a->policy));
	json_object_set_new(j, "why_not_higher", json_str_or_null(a->why_not_higher));
	json_object_set_new(j, "errors", json_integer(a->errors));
	json_object_set_new(j, "warnings", json_integer(a->warnings));
	json_object_set_new(j, "findings", audit_findings_json(a));
	return j;
}

json_t *report_json(const struct plan_ctx *pc, const struct report *r)
{
	const struct plan *p = &pc->plan;
	json_t *root = json_object();
	json_object_set_new(root, "format", json_integer(1));
	json_object_set_new(root, "project", json_str_or_null(r->project));
	json_object_set_new(root, "version", json_str_or_null(r->version));
	json_object_set_new(root, "build_dir", json_string(r->build_dir));
	json_object_set_new(root, "wall_seconds", json_real(r->wall_seconds));
	json_t *tc = json_object();
	json_object_set_new(tc, "cc", json_str_or_null(r->cc_version));
	json_t *nv = json_array();
	for (size_t t = 0; t < p->n_toolkits; t++) {
		const struct toolkit_plan *tp = &p->toolkits[t];
		if (!tp->used || !tp->tk)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "cuda", json_string(tp->cuda));
		json_object_set_new(o, "version", json_str_or_null(tp->tk->version));
		json_object_set_new(o, "nvcc", json_str_or_null(tp->tk->nvcc));
		json_array_append_new(nv, o);
	}
	json_object_set_new(tc, "nvcc", nv);
	json_t *py = json_array();
	struct strv seen = {0};
	struct arena tmp = {0};
	for (size_t i = 0; i < r->n_cells; i++) {
		const struct cell *cl = r->cells[i].cell;
		if (!cl || !cl->py || strv_contains(&seen, cl->py->path))
			continue;
		strv_push(&tmp, &seen, cl->py->path);
		json_t *o = json_object();
		json_object_set_new(o, "version", json_str_or_null(cl->py->version));
		json_object_set_new(o, "path", json_str_or_null(cl->py->path));
		json_array_append_new(py, o);
	}
	arena_free(&tmp);
	json_object_set_new(tc, "pythons", py);
	json_object_set_new(root, "toolchain", tc);
	json_object_set_new(root, "archives",
	                    r->archives ? json_incref(r->archives) : json_array());
	json_t *cells = json_array();
	for (size_t i = 0; i < r->n_cells; i++) {
		const struct report_cell *rc = &r->cells[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(rc->id));
		json_object_set_new(o, "python",
		                    json_str_or_null(rc->cell ? rc->cell->python : NULL));
		json_object_set_new(o, "cuda", json_str_or_null(rc->cell ? rc->cell->cuda : NULL));
		json_object_set_new(o, "torch",
		                    json_str_or_null(rc->cell ? rc->cell->torch : NULL));
		json_object_set_new(o, "result", json_string(rc->result));
		json_object_set_new(o, "reason", json_str_or_null(rc->reason));
		json_object_set_new(o, "wheel", json_str_or_null(rc->wheel));
		json_object_set_new(o, "size", json_integer(rc->size));
		json_object_set_new(o, "seconds",
		                    rc->seconds < 0 ? json_null() : json_real(rc->seconds));
		json_object_set_new(o, "audit", rc->audited ? audit_json(&rc->audit) : json_null());
		json_array_append_new(cells, o);
	}
	json_object_set_new(root, "cells", cells);
	json_t *steps = json_array();
	for (size_t i = 0; i < r->n_steps; i++) {
		const struct report_step *s = &r->steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(s->name));
		json_object_set_new(o, "row", json_string(s->row));
		json_object_set_new(o, "stage", json_string(s->kernels ? "kernels" : "cell"));
		json_object_set_new(o, "output", json_string(s->output));
		json_object_set_new(o, "start_ms", json_integer(s->start_ms));
		json_object_set_new(o, "end_ms", json_integer(s->end_ms));
		json_object_set_new(o, "lane", json_integer(s->lane));
		json_array_append_new(steps, o);
	}
	json_object_set_new(root, "steps", steps);
	json_object_set_new(root, "lanes", json_integer(r->n_lanes));
	return root;
}

json_t *report_trace(const struct report *r)
{
	json_t *ev = json_array();
	json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name",
	                                    "ph", "M", "pid", 1, "tid", 0, "args", "name",
	                                    "cuwheel build"));
	for (int l = 0; l < r->n_lanes; l++) {
		char name[32];
		snprintf(name, sizeof(name), "core %d", l + 1);
		json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name",
		                                    "thread_name", "ph", "M", "pid", 1, "tid", l,
		                                    "args", "name", name));
	}
	for (size_t i = 0; i < r->n_steps; i++) {
		const struct report_step *s = &r->steps[i];
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

static bool write_json(struct cli *c, const char *path, json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	bool ok = text && os_write_atomic(&c->diag, path, text, strlen(text), 0644);
	free(text);
	return ok;
}

int report_write(struct cli *c, const struct plan_ctx *pc, json_t *doc, const char *out_dir)
{
	struct report r;
	if (doc)
		report_from(c, pc, doc, &r);
	else if (!report_load(c, pc, &r))
		return CLI_FAIL;
	struct arena *a = &c->arena;
	if (!out_dir)
		out_dir = r.build_dir;
	bool ok = os_mkdir_p(&c->diag, out_dir);
	json_t *data = report_json(pc, &r);
	json_t *trace = report_trace(&r);
	char *html = report_html(a, pc, &r);
	const char *html_path = os_join(a, out_dir, "report.html");
	ok = ok && write_json(c, os_join(a, out_dir, "report-data.json"), data) &&
	     write_json(c, os_join(a, out_dir, "report-trace.json"), trace) &&
	     os_write_atomic(&c->diag, html_path, html, strlen(html), 0644);
	json_decref(data);
	json_decref(trace);
	report_free(&r);
	if (ok)
		printf("report: %s (and report-data.json, report-trace.json beside it)\n",
		       html_path);
	return ok ? CLI_OK : CLI_FAIL;
}
