/* report_json.c: the build-result model as report.json (format 2, docs/manual/report.md) and
 * back: what `cuwheel report` renders and the next build's progress estimate reads. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/os-file.h"
#include "report/build_result.h"
#include "standards/json_values.h"

static const char *const state_names[] = {
    [RESULT_WAITING] = "waiting",
    [RESULT_RUNNING] = "running",
    [RESULT_OK] = "ok",
    [RESULT_FAILED] = "failed",
    [RESULT_BLOCKED] = "blocked",
    [RESULT_NOT_BUILT] = "not built",
    [RESULT_CANNOT_BUILD] = "cannot build here",
    [RESULT_NOT_SELECTED] = "not selected",
};

/* Seconds to the millisecond, so that the document reads back to itself. */
static json_t *secs(double s)
{
	return s < 0 ? json_null() : json_real(round(s * 1000.0) / 1000.0);
}

static json_t *row_common(json_t *o, const struct result_row *w)
{
	json_object_set_new(o, "result", json_string(result_word(w)));
	json_object_set_new(o, "state", json_string(state_names[w->state]));
	json_object_set_new(o, "step", json_str_or_null(w->step));
	json_object_set_new(o, "seconds", secs(w->seconds));
	json_object_set_new(o, "work_seconds", secs(w->work_seconds));
	json_object_set_new(o, "work_steps", json_integer((json_int_t)w->work_steps));
	return o;
}

static json_t *archive_json(const struct result_row *w)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(w->name));
	json_object_set_new(o, "cuda", json_str_or_null(w->cuda));
	json_object_set_new(o, "nvcc", json_str_or_null(w->nvcc));
	json_object_set_new(o, "archive", json_str_or_null(w->archive));
	json_object_set_new(o, "key", json_str_or_null(w->key));
	json_object_set_new(o, "objects", json_integer((json_int_t)w->objects));
	return row_common(o, w);
}

static json_t *cell_json(const struct result_row *w)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(w->name));
	json_object_set_new(o, "python", json_str_or_null(w->python));
	json_object_set_new(o, "cuda", json_str_or_null(w->cuda));
	json_object_set_new(o, "torch", json_str_or_null(w->torch));
	json_object_set_new(o, "interpreter", json_str_or_null(w->interpreter));
	row_common(o, w);
	json_object_set_new(o, "reason", json_str_or_null(w->reason));
	json_object_set_new(o, "wheel", json_str_or_null(w->wheel));
	json_object_set_new(o, "size", json_integer(w->size));
	/* As `internal finish` kept it in cells/<id>/audit.json, key for key. */
	json_object_set_new(o, "audit", w->audited ? audit_result_to_json(&w->audit) : json_null());
	/* As `internal compat` kept it in cells/<id>/compat.json; only where torch-compat ran. */
	if (w->compat_done)
		json_object_set_new(o, "torch_compat", torch_compat_to_json(&w->compat));
	return o;
}

static json_t *toolchain_json(const struct build_result *m)
{
	json_t *tks = json_array();
	for (size_t i = 0; i < m->n_toolkits; i++) {
		const struct result_toolkit *t = &m->toolkits[i];
		json_array_append_new(
		    tks, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "cuda",
		                   json_str_or_null(t->cuda), "version",
		                   json_str_or_null(t->version), "nvcc", json_str_or_null(t->nvcc),
		                   "cc", json_str_or_null(t->cc), "cxx", json_str_or_null(t->cxx),
		                   "cc_version", json_str_or_null(t->cc_version)));
	}
	json_t *pys = json_array();
	for (size_t i = 0; i < m->n_pythons; i++) {
		const struct result_python *py = &m->pythons[i];
		json_array_append_new(pys, json_pack("{s:o, s:o, s:o}", "version",
		                                     json_str_or_null(py->version), "path",
		                                     json_str_or_null(py->path), "torch",
		                                     json_str_or_null(py->torch)));
	}
	return json_pack("{s:o, s:o}", "toolkits", tks, "pythons", pys);
}

json_t *result_to_json(const struct build_result *m)
{
	json_t *root = json_object();
	json_object_set_new(root, "format", json_integer(RESULT_FORMAT));
	json_object_set_new(root, "project", json_str_or_null(m->project));
	json_object_set_new(root, "version", json_str_or_null(m->version));
	json_object_set_new(root, "build_dir", json_str_or_null(m->build_dir));
	json_object_set_new(root, "dist_dir", json_str_or_null(m->dist_dir));
	json_object_set_new(root, "wall_seconds", secs(m->wall_seconds));
	json_object_set_new(root, "toolchain", toolchain_json(m));
	json_t *archives = json_array(), *cells = json_array();
	for (size_t i = 0; i < m->n_rows; i++)
		json_array_append_new(m->rows[i].is_archive ? archives : cells,
		                      m->rows[i].is_archive ? archive_json(&m->rows[i])
		                                            : cell_json(&m->rows[i]));
	json_object_set_new(root, "archives", archives);
	json_object_set_new(root, "cells", cells);
	json_t *steps = json_array();
	for (size_t i = 0; i < m->n_steps; i++) {
		const struct result_step *s = &m->steps[i];
		json_array_append_new(
		    steps, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:i}", "name", s->name, "row",
		                     s->row, "stage", s->kernels ? "kernels" : "cell", "output",
		                     s->output, "start_ms", (json_int_t)s->start_ms, "end_ms",
		                     (json_int_t)s->end_ms, "lane", s->lane));
	}
	json_object_set_new(root, "steps", steps);
	json_object_set_new(root, "lanes", json_integer(m->n_lanes));
	json_object_set_new(root, "span_ms", json_integer((json_int_t)m->span_ms));
	return root;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : -1;
}

static void row_from(struct arena *a, const json_t *o, struct result_row *w)
{
	const char *st = json_string_value(json_object_get(o, "state"));
	w->state = RESULT_FAILED;
	for (size_t k = 0; st && k < sizeof(state_names) / sizeof(*state_names); k++)
		if (!strcmp(st, state_names[k]))
			w->state = (enum result_state)k;
	w->cuda = json_str_read(a, o, "cuda");
	w->step = json_str_read(a, o, "step");
	w->seconds = num(o, "seconds");
	w->work_seconds = num(o, "work_seconds");
	if (w->work_seconds < 0)
		w->work_seconds = 0;
	w->work_steps = (size_t)json_integer_value(json_object_get(o, "work_steps"));
	w->t_start = w->t_end = -1;
	w->archive_row = SIZE_MAX;
}

static void toolchain_from(struct arena *a, const json_t *tc, struct build_result *m)
{
	const json_t *tks = json_object_get(tc, "toolkits"), *pys = json_object_get(tc, "pythons");
	m->toolkits = arena_calloc(a, json_array_size(tks) + 1, sizeof(*m->toolkits));
	m->pythons = arena_calloc(a, json_array_size(pys) + 1, sizeof(*m->pythons));
	size_t i;
	const json_t *v;
	json_array_foreach(tks, i, v)
	{
		m->toolkits[m->n_toolkits++] = (struct result_toolkit){
		    .cuda = json_str_read(a, v, "cuda"),
		    .version = json_str_read(a, v, "version"),
		    .nvcc = json_str_read(a, v, "nvcc"),
		    .cc = json_str_read(a, v, "cc"),
		    .cxx = json_str_read(a, v, "cxx"),
		    .cc_version = json_str_read(a, v, "cc_version"),
		};
	}
	json_array_foreach(pys, i, v)
	{
		m->pythons[m->n_pythons++] =
		    (struct result_python){.version = json_str_read(a, v, "version"),
		                           .path = json_str_read(a, v, "path"),
		                           .torch = json_str_read(a, v, "torch")};
	}
}

static void steps_from(struct arena *a, const json_t *steps, struct build_result *m)
{
	m->steps = arena_calloc(a, json_array_size(steps) + 1, sizeof(*m->steps));
	size_t i;
	const json_t *v;
	json_array_foreach(steps, i, v)
	{
		const char *stage = json_string_value(json_object_get(v, "stage"));
		struct result_step *s = &m->steps[m->n_steps++];
		s->name = json_str_read(a, v, "name");
		s->row = json_str_read(a, v, "row");
		s->output = json_str_read(a, v, "output");
		if (!s->name)
			s->name = "?";
		if (!s->row)
			s->row = "other";
		if (!s->output)
			s->output = "";
		s->kernels = stage && !strcmp(stage, "kernels");
		s->start_ms = (long long)json_integer_value(json_object_get(v, "start_ms"));
		s->end_ms = (long long)json_integer_value(json_object_get(v, "end_ms"));
		s->lane = (int)json_integer_value(json_object_get(v, "lane"));
	}
}

bool result_from_json(struct arena *a, struct diag *d, const char *path, const json_t *doc,
                      struct build_result *m)
{
	memset(m, 0, sizeof(*m));
	json_int_t format = json_integer_value(json_object_get(doc, "format"));
	if (!json_is_object(doc) || format != RESULT_FORMAT) {
		diag_path(
		    d, DIAG_ERROR, path,
		    "not a build report of format %d (format %lld): an older cuwheel wrote it",
		    RESULT_FORMAT, (long long)format);
		diag_msg(d, DIAG_HINT, "run `cuwheel build` again to write it anew");
		return false;
	}
	m->project = json_str_read(a, doc, "project");
	m->version = json_str_read(a, doc, "version");
	m->build_dir = json_str_read(a, doc, "build_dir");
	m->dist_dir = json_str_read(a, doc, "dist_dir");
	m->wall_seconds = num(doc, "wall_seconds");
	toolchain_from(a, json_object_get(doc, "toolchain"), m);
	const json_t *archives = json_object_get(doc, "archives"),
	             *cells = json_object_get(doc, "cells");
	m->rows = arena_calloc(a, json_array_size(archives) + json_array_size(cells) + 1,
	                       sizeof(*m->rows));
	size_t i;
	const json_t *v;
	json_array_foreach(archives, i, v)
	{
		struct result_row *w = &m->rows[m->n_rows++];
		row_from(a, v, w);
		w->is_archive = true;
		w->name = json_str_read(a, v, "name");
		w->nvcc = json_str_read(a, v, "nvcc");
		w->archive = json_str_read(a, v, "archive");
		w->key = json_str_read(a, v, "key");
		w->objects = (size_t)json_integer_value(json_object_get(v, "objects"));
		if (!w->name)
			w->name = "?";
	}
	json_array_foreach(cells, i, v)
	{
		struct result_row *w = &m->rows[m->n_rows++];
		row_from(a, v, w);
		w->name = json_str_read(a, v, "id");
		w->python = json_str_read(a, v, "python");
		w->torch = json_str_read(a, v, "torch");
		w->interpreter = json_str_read(a, v, "interpreter");
		w->reason = json_str_read(a, v, "reason");
		w->wheel = json_str_read(a, v, "wheel");
		w->size = (long long)json_integer_value(json_object_get(v, "size"));
		w->audited = audit_result_from_json(a, json_object_get(v, "audit"), &w->audit);
		const json_t *tc = json_object_get(v, "torch_compat");
		struct diag quiet = {0};
		w->compat_done = json_is_object(tc) &&
		                 torch_compat_from_json(a, &quiet, "report.json", tc, &w->compat);
		if (!w->name)
			w->name = "?";
	}
	steps_from(a, json_object_get(doc, "steps"), m);
	m->n_lanes = (int)json_integer_value(json_object_get(doc, "lanes"));
	m->span_ms = (long long)json_integer_value(json_object_get(doc, "span_ms"));
	return true;
}

bool result_load(struct arena *a, struct diag *d, const char *build_dir, struct build_result *m)
{
	const char *path = os_join(a, build_dir, "report.json");
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	if (!doc) {
		memset(m, 0, sizeof(*m));
		diag_path(d, DIAG_ERROR, path, "no build to report on (%s)", err.text);
		diag_msg(d, DIAG_HINT, "run `cuwheel build` first");
		return false;
	}
	bool ok = result_from_json(a, d, path, doc, m);
	json_decref(doc);
	return ok;
}

void result_expect(struct arena *a, struct diag *d, const char *build_dir, struct build_result *m)
{
	const char *path = os_join(a, build_dir, "report.json");
	if (!os_exists(path))
		return; /* a first build */
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	if (!doc) {
		diag_path(d, DIAG_WARNING, path, "unreadable (%s): the progress has no estimate",
		          err.text);
		return;
	}
	struct build_result prev;
	struct diag quiet = {0}; /* an older report: no estimate this once */
	if (result_from_json(a, &quiet, path, doc, &prev)) {
		for (size_t i = 0; i < m->n_rows; i++)
			for (size_t k = 0; k < prev.n_rows; k++)
				if (prev.rows[k].is_archive == m->rows[i].is_archive &&
				    !strcmp(prev.rows[k].name, m->rows[i].name)) {
					m->rows[i].expected = prev.rows[k].work_seconds;
					m->rows[i].n_expected = prev.rows[k].work_steps;
				}
	}
	json_decref(doc);
}
