/* torch_compat.c: torch-compatibility discovery (see torch_compat.h). */
#include "wheeltest/torch_compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standards/json_values.h"

bool torch_compat_run(struct arena *a, struct diag *d, const struct wheeltest_opts *o,
                      const char *wheel, struct compat_result *r)
{
	memset(r, 0, sizeof(*r));
	const char *slash = strrchr(wheel, '/');
	r->wheel = slash ? slash + 1 : wheel;
	r->torch = wheeltest_wheel_torch(a, wheel);
	struct strv wheels = {0};
	strv_push(a, &wheels, wheel);
	const struct strv *tc = &o->cfg->test.torch_compat;
	size_t cap = 0;
	for (size_t t = 0; t < tc->n; t++) {
		struct wheeltest_opts wo = *o;
		wo.wheels = &wheels;
		wo.compat_torch = tc->v[t];
		struct wheeltest_job *jobs;
		size_t n;
		if (!wheeltest_plan(a, d, &wo, &jobs, &n))
			return false;
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= jobs[i].result != WHEELTEST_SKIP;
		if (any && !wheeltest_run(a, d, &wo, jobs, n))
			return false;
		if (r->n_rows + n > cap) {
			size_t nc = r->n_rows + n;
			r->rows = arena_realloc(a, r->rows, cap, nc, sizeof(*r->rows));
			cap = nc;
		}
		for (size_t i = 0; i < n; i++) {
			const struct wheeltest_job *j = &jobs[i];
			struct compat_row *row = &r->rows[r->n_rows++];
			row->torch = tc->v[t];
			row->torch_version =
			    j->py && j->py->torch.present ? j->py->torch.version : NULL;
			row->python = j->py ? arena_printf(a, "%d.%d%s", j->py->major, j->py->minor,
			                                   j->py->freethreaded ? "t" : "")
			                    : "-";
			row->result = wheeltest_result_name(j->result);
			row->step = j->result == WHEELTEST_PASS ? NULL : j->reason;
			row->error = j->result == WHEELTEST_FAIL
			                 ? wheeltest_first_error(a, j->output)
			                 : NULL;
			row->seconds = j->seconds;
		}
	}
	r->requirement = r->torch ? torch_compat_range(a, r->torch, r->rows, r->n_rows) : NULL;
	return true;
}

/* Whether every try of minor (major, minor) ran and passed, with at least one: proven. */
static bool minor_passed(const struct compat_row *rows, size_t n, int major, int minor)
{
	bool ran = false;
	for (size_t i = 0; i < n; i++) {
		int ma, mi;
		if (sscanf(rows[i].torch, "%d.%d", &ma, &mi) != 2 || ma != major || mi != minor)
			continue;
		if (!strcmp(rows[i].result, "fail"))
			return false;
		ran |= !strcmp(rows[i].result, "pass");
	}
	return ran;
}

const char *torch_compat_range(struct arena *a, const char *own, const struct compat_row *rows,
                               size_t n_rows)
{
	int major, minor;
	if (sscanf(own, "%d.%d", &major, &minor) != 2)
		return NULL;
	int lo = minor, hi = minor;
	while (lo > 0 && minor_passed(rows, n_rows, major, lo - 1))
		lo--;
	while (minor_passed(rows, n_rows, major, hi + 1))
		hi++;
	return arena_printf(a, "torch>=%d.%d,<%d.%d", major, lo, major, hi + 1);
}

json_t *torch_compat_to_json(const struct compat_result *r)
{
	json_t *root = json_object();
	json_object_set_new(root, "format", json_integer(1));
	json_object_set_new(root, "wheel", json_str_or_null(r->wheel));
	json_object_set_new(root, "torch", json_str_or_null(r->torch));
	json_object_set_new(root, "requirement", json_str_or_null(r->requirement));
	json_t *rows = json_array();
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct compat_row *w = &r->rows[i];
		json_t *o = json_object();
		json_object_set_new(o, "torch", json_str_or_null(w->torch));
		json_object_set_new(o, "torch_version", json_str_or_null(w->torch_version));
		json_object_set_new(o, "python", json_str_or_null(w->python));
		json_object_set_new(o, "result", json_str_or_null(w->result));
		json_object_set_new(o, "step", json_str_or_null(w->step));
		json_object_set_new(o, "error", json_str_or_null(w->error));
		json_object_set_new(o, "seconds", json_real(w->seconds));
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "rows", rows);
	return root;
}

bool torch_compat_from_json(struct arena *a, struct diag *d, const char *path, const json_t *doc,
                            struct compat_result *r)
{
	memset(r, 0, sizeof(*r));
	const json_t *rows = json_object_get(doc, "rows");
	if (json_integer_value(json_object_get(doc, "format")) != 1 || !json_is_array(rows)) {
		diag_path(d, DIAG_ERROR, path,
		          "not a torch-compat result of this cuwheel (format 1)");
		return false;
	}
	r->wheel = json_str_read(a, doc, "wheel");
	r->torch = json_str_read(a, doc, "torch");
	r->requirement = json_str_read(a, doc, "requirement");
	r->rows = arena_calloc(a, json_array_size(rows) + 1, sizeof(*r->rows));
	size_t i;
	const json_t *o;
	json_array_foreach(rows, i, o)
	{
		struct compat_row *w = &r->rows[r->n_rows++];
		w->torch = json_str_read(a, o, "torch");
		w->torch_version = json_str_read(a, o, "torch_version");
		w->python = json_str_read(a, o, "python");
		w->result = json_str_read(a, o, "result");
		w->step = json_str_read(a, o, "step");
		w->error = json_str_read(a, o, "error");
		w->seconds = json_number_value(json_object_get(o, "seconds"));
		if (!w->torch || !w->result) {
			diag_path(d, DIAG_ERROR, path, "row %zu has no torch or result", i);
			return false;
		}
	}
	return true;
}
