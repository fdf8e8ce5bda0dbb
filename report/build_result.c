/* build_result.c: the build-result model: its rows from the plan and the graph, the one map from
 * a ninja step (its status line or its output) to a row, and what the build leaves behind
 * (.ninja_log, the placed wheels, the cells' audits) gathered once when ninja is done. */
#include "report/build_result.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"

/* Which rows ninja was asked for (want_tk per toolkit, want_cell per cell): all of them for no
 * target or "all"; the archives for "kernels"; a cell for its id, with its archive; an archive
 * for its path. Rows outside them are not shown: their steps never run, so ninja succeeding says
 * nothing of them (`--stage kernels` must not report cells ok). */
static void rows_wanted(const struct plan *p, const struct build_graph *g,
                        const struct strv *targets, bool *want_tk, bool *want_cell)
{
	bool all = targets->n == 0 || strv_contains(targets, "all");
	for (size_t t = 0; t < p->n_toolkits; t++)
		want_tk[t] = all || (g->archives[t].archive &&
		                     (strv_contains(targets, "kernels") ||
		                      strv_contains(targets, g->archives[t].archive)));
	for (size_t i = 0; i < p->n_cells; i++) {
		want_cell[i] =
		    all || (g->cells[i].target && strv_contains(targets, g->cells[i].target));
		if (want_cell[i])
			want_tk[p->cells[i].toolkit] = true;
	}
}

/* The toolchain the graph uses: its toolkits with their host compilers, and the Pythons that
 * build its cells (with their torch where a cell builds against it). */
static void toolchain_init(struct arena *a, const struct plan *p, const struct build_graph *g,
                           struct build_result *m)
{
	m->toolkits = arena_calloc(a, p->n_toolkits + 1, sizeof(*m->toolkits));
	for (size_t t = 0; t < p->n_toolkits; t++) {
		const struct toolkit *tk = p->toolkits[t].tk;
		if (!g->archives[t].dir || !tk)
			continue;
		m->toolkits[m->n_toolkits++] = (struct result_toolkit){
		    .cuda = p->toolkits[t].cuda,
		    .version = tk->version,
		    .nvcc = tk->nvcc,
		    .cc = tk->host.cc,
		    .cxx = tk->host.cxx,
		    .cc_version = tk->host.version,
		};
	}
	m->pythons = arena_calloc(a, p->n_cells + 1, sizeof(*m->pythons));
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *cl = &p->cells[i];
		if (!g->cells[i].dir || !cl->py)
			continue;
		const char *torch =
		    cl->torch && cl->py->torch.present ? cl->py->torch.version : NULL;
		size_t k = 0;
		while (k < m->n_pythons && strcmp(m->pythons[k].path, cl->py->path))
			k++;
		if (k == m->n_pythons)
			m->pythons[m->n_pythons++] = (struct result_python){
			    .version = cl->py->version, .path = cl->py->path};
		if (torch)
			m->pythons[k].torch = torch;
	}
}

void result_init(struct arena *a, const struct plan *p, const struct build_graph *g,
                 const struct strv *targets, struct build_result *m)
{
	*m = (struct build_result){.project = p->cfg->project.name,
	                           .version = p->cfg->project.version,
	                           .build_dir = g->build_dir,
	                           .dist_dir = p->cfg->dist_dir};
	m->rows = arena_calloc(a, p->n_toolkits + p->n_cells + 1, sizeof(*m->rows));
	size_t *arch_row = arena_calloc(a, p->n_toolkits + 1, sizeof(size_t));
	m->toolkit_row = arch_row;
	m->cell_row = arena_calloc(a, p->n_cells + 1, sizeof(size_t));
	m->graph_steps = g->steps;
	m->n_graph_steps = g->n_steps;
	bool *want_tk = arena_calloc(a, p->n_toolkits + 1, sizeof(bool));
	bool *want_cell = arena_calloc(a, p->n_cells + 1, sizeof(bool));
	rows_wanted(p, g, targets, want_tk, want_cell);
	for (size_t t = 0; t < p->n_toolkits; t++) {
		const struct archive_paths *ap = &g->archives[t];
		arch_row[t] = SIZE_MAX;
		if (!ap->dir)
			continue;
		struct result_row *w = &m->rows[m->n_rows];
		w->name = arena_printf(a, "kernels CUDA %s", p->toolkits[t].cuda);
		w->is_archive = true;
		w->cuda = p->toolkits[t].cuda;
		w->nvcc = p->toolkits[t].tk ? p->toolkits[t].tk->nvcc : NULL;
		w->archive = ap->archive;
		w->key = ap->key;
		w->objects = ap->n_objects;
		w->shown = want_tk[t];
		w->prefix = arena_printf(a, "%s/", ap->dir);
		w->last_step = "ar ";
		w->target = ap->archive;
		w->archive_row = SIZE_MAX;
		arch_row[t] = m->n_rows++;
	}
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct cell *cl = &p->cells[i];
		const struct cell_paths *cp = &g->cells[i];
		m->cell_row[i] = m->n_rows;
		struct result_row *w = &m->rows[m->n_rows++];
		w->name = cl->id;
		w->cuda = cl->cuda;
		w->python = cl->python;
		w->torch = cl->torch;
		w->interpreter = cl->py ? cl->py->path : NULL;
		w->archive_row = arch_row[cl->toolkit];
		w->state = !cl->selected    ? RESULT_NOT_SELECTED
		           : !cl->buildable ? RESULT_CANNOT_BUILD
		                            : RESULT_WAITING;
		w->reason = !cl->selected ? cl->unselected_by : !cl->buildable ? cl->why_not : NULL;
		if (!cp->dir)
			continue;
		w->shown = want_cell[i];
		w->prefix = arena_printf(a, "%s/", cp->dir);
		w->last_step = cp->tested ? "test" : "audit";
		w->final = cp->final;
		w->target = cp->target;
		w->packed = cp->wheel;
	}
	for (size_t i = 0; i < m->n_rows; i++) {
		m->rows[i].t_start = m->rows[i].t_end = -1;
		m->rows[i].seconds = -1;
	}
	toolchain_init(a, p, g, m);
}

size_t result_row_of_desc(const struct build_result *m, const char *desc, const char **step)
{
	*step = desc;
	const char *colon = strstr(desc, ": ");
	if (colon) {
		size_t n = (size_t)(colon - desc);
		for (size_t i = 0; i < m->n_rows; i++) {
			if (m->rows[i].shown && strlen(m->rows[i].name) == n &&
			    !strncmp(desc, m->rows[i].name, n)) {
				*step = colon + 2;
				return i;
			}
		}
	}
	/* "ar <out>", "link <out>": an output under the row's directory. */
	for (size_t i = 0; i < m->n_rows; i++)
		if (m->rows[i].shown && strstr(desc, m->rows[i].prefix))
			return i;
	return SIZE_MAX;
}

/* The renderer's step for output (its name and row), or NULL when the graph has none (an edge
 * of another graph in the same build dir's log). */
static const struct graph_step *step_of(const struct build_result *m, const char *output)
{
	for (size_t i = 0; i < m->n_graph_steps; i++)
		if (!strcmp(m->graph_steps[i].output, output))
			return &m->graph_steps[i];
	return NULL;
}

/* The row of step st (SIZE_MAX: none). */
static size_t row_of_step(const struct build_result *m, const struct graph_step *st)
{
	if (!st)
		return SIZE_MAX;
	if (st->toolkit >= 0)
		return m->toolkit_row[st->toolkit];
	if (st->cell >= 0)
		return m->cell_row[st->cell];
	return SIZE_MAX;
}

/* The word a running step puts its row in: "compiling", "linking", ... ("running"). */
static const char *result_step_verb(const char *step)
{
	static const char *const map[][2] = {
	    {"nvcc ", "compiling"}, {"cc ", "compiling"},  {"pch ", "compiling"},
	    {"ar ", "archiving"},   {"link ", "linking"},  {"stage", "staging"},
	    {"pack", "packing"},    {"audit", "auditing"}, {"test", "testing"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (!strncmp(step, map[i][0], strlen(map[i][0])))
			return map[i][1];
	return "running";
}

const char *result_state_word(const struct result_row *w)
{
	switch (w->state) {
	case RESULT_WAITING:
		return "waiting";
	case RESULT_RUNNING:
		return w->step ? result_step_verb(w->step) : "running";
	case RESULT_OK:
		return "ok";
	case RESULT_FAILED:
		return "FAILED";
	case RESULT_BLOCKED:
		return "blocked";
	case RESULT_NOT_BUILT:
		return "not built";
	case RESULT_CANNOT_BUILD:
		return "cannot build here";
	case RESULT_NOT_SELECTED:
		return "not selected";
	}
	return "?";
}

const char *result_word(const struct result_row *w)
{
	switch (w->state) {
	case RESULT_OK:
		return "ok";
	case RESULT_CANNOT_BUILD:
		return "cannot build here";
	case RESULT_NOT_SELECTED:
		return "not selected";
	default:
		return "failed";
	}
}

/* The wall time covered by n intervals [st, en] (ms): their union, so steps that ran side by
 * side count once. Sorts iv. */
static double union_seconds(long long (*iv)[2], size_t n)
{
	/* Insertion sort by start: a row has a handful of steps. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && iv[j][0] < iv[j - 1][0]; j--) {
			long long t0 = iv[j][0], t1 = iv[j][1];
			iv[j][0] = iv[j - 1][0];
			iv[j][1] = iv[j - 1][1];
			iv[j - 1][0] = t0;
			iv[j - 1][1] = t1;
		}
	long long total = 0, cs = 0, ce = -1;
	for (size_t i = 0; i < n; i++) {
		if (iv[i][0] > ce) {
			total += ce >= cs ? ce - cs : 0;
			cs = iv[i][0];
			ce = iv[i][1];
		} else if (iv[i][1] > ce) {
			ce = iv[i][1];
		}
	}
	total += ce >= cs ? ce - cs : 0;
	return (double)total / 1000.0;
}

static int step_cmp(const void *x, const void *y)
{
	const struct result_step *a = x, *b = y;
	if (a->start_ms != b->start_ms)
		return a->start_ms < b->start_ms ? -1 : 1;
	return a->end_ms < b->end_ms ? -1 : a->end_ms > b->end_ms;
}

/* The run's entries as steps, by start time, each on the first core free when it starts; and
 * each row's wall time in this run (the union of its steps). */
static void steps_from_run(struct arena *a, const struct ninja_log_entry *e, size_t n,
                           struct build_result *m)
{
	struct result_step *v = arena_calloc(a, n + 1, sizeof(*v));
	size_t *rows = arena_calloc(a, n + 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		const struct graph_step *st = step_of(m, e[i].output);
		size_t r = row_of_step(m, st);
		v[i] = (struct result_step){.name = st ? st->name : e[i].output,
		                            .row = r == SIZE_MAX ? "other" : m->rows[r].name,
		                            .output = e[i].output,
		                            .kernels = st && st->toolkit >= 0,
		                            .start_ms = e[i].start_ms,
		                            .end_ms = e[i].end_ms};
		rows[i] = r;
	}
	long long(*iv)[2] = arena_calloc(a, n + 1, sizeof(*iv));
	for (size_t r = 0; r < m->n_rows; r++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (rows[i] == r) {
				iv[k][0] = e[i].start_ms;
				iv[k++][1] = e[i].end_ms;
			}
		if (k)
			m->rows[r].seconds = union_seconds(iv, k);
	}
	qsort(v, n, sizeof(*v), step_cmp);
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
		if (v[i].end_ms > m->span_ms)
			m->span_ms = v[i].end_ms;
	}
	m->steps = v;
	m->n_steps = n;
	m->n_lanes = lanes;
}

/* The audit `internal finish` kept for a cell's wheel: a failed cell's only when it is not
 * older than the wheel it would describe. */
static void cell_audit(struct arena *a, struct diag *d, struct result_row *w, const char *bdir)
{
	const char *path = os_join(a, bdir, arena_printf(a, "%saudit.json", w->prefix));
	if (!os_exists(path) ||
	    (w->state != RESULT_OK && os_mtime_ns(path) < os_mtime_ns(os_join(a, bdir, w->packed))))
		return;
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);
	if (!j) {
		diag_path(d, DIAG_WARNING, path,
		          "unreadable audit result (%s): the report leaves it out", err.text);
		return;
	}
	w->audited = audit_result_from_json(a, j, &w->audit);
	json_decref(j);
}

/* The table `internal compat` kept for a cell's wheel, when it ran and is not older than that
 * wheel. */
static void cell_compat(struct arena *a, struct diag *d, struct result_row *w, const char *bdir)
{
	const char *path = os_join(a, bdir, arena_printf(a, "%scompat.json", w->prefix));
	if (!os_exists(path) ||
	    (w->packed && os_mtime_ns(path) < os_mtime_ns(os_join(a, bdir, w->packed))))
		return;
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);
	if (!j) {
		diag_path(d, DIAG_WARNING, path,
		          "unreadable torch-compat result (%s): the report leaves it out",
		          err.text);
		return;
	}
	struct diag quiet = {0};
	w->compat_done = torch_compat_from_json(a, &quiet, path, j, &w->compat);
	json_decref(j);
}

/* A placed cell's wheel (its final stamp names it) and size. */
static void cell_wheel(struct arena *a, struct result_row *w, const char *bdir)
{
	struct source s;
	struct diag quiet = {0}; /* a probe: a cell with no final stamp placed no wheel */
	if (!os_read_file(a, &quiet, os_join(a, bdir, w->final), &s))
		return;
	w->wheel = arena_strndup(a, s.text, strcspn(s.text, "\n"));
	struct os_stat st;
	if (os_stat(w->wheel, &st))
		w->size = (long long)st.size;
}

void result_finish(struct arena *a, struct diag *d, const struct ninja_log_mark *before,
                   double wall, struct build_result *m)
{
	m->wall_seconds = wall;
	struct ninja_log log;
	if (!ninja_log_load(a, d, m->build_dir, &log))
		diag_msg(d, DIAG_WARNING,
		         "the step times are left out of the summary and the report");
	struct ninja_log_entry *e;
	size_t n = ninja_log_run(&log, before, &e);
	steps_from_run(a, e, n, m);
	n = ninja_log_view(a, &log, NINJA_LOG_LATEST, &e);
	for (size_t i = 0; i < n; i++) {
		size_t r = row_of_step(m, step_of(m, e[i].output));
		if (r == SIZE_MAX)
			continue;
		m->rows[r].work_seconds += (double)(e[i].end_ms - e[i].start_ms) / 1000.0;
		m->rows[r].work_steps++;
	}
	for (size_t i = 0; i < m->n_rows; i++) {
		struct result_row *w = &m->rows[i];
		if (w->is_archive || !w->prefix)
			continue;
		if (w->state == RESULT_OK)
			cell_wheel(a, w, m->build_dir);
		cell_audit(a, d, w, m->build_dir);
		cell_compat(a, d, w, m->build_dir);
	}
}

void result_count(const struct build_result *m, size_t *ok, size_t *failed, size_t *skipped)
{
	*ok = *failed = *skipped = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		const struct result_row *w = &m->rows[i];
		if (w->is_archive || w->state == RESULT_NOT_SELECTED)
			continue;
		if (w->state == RESULT_OK)
			(*ok)++;
		else if (w->state == RESULT_CANNOT_BUILD)
			(*skipped)++;
		else
			(*failed)++;
	}
}
