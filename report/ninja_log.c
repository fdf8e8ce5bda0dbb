/* ninja_log.c: reads .ninja_log (format v5/v6: "start\tend\tmtime\toutput\thash" lines after a
 * "# ninja log vN" header). */
#include "report/ninja_log.h"

#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/strbuf.h"

struct keyed {
	const char *output;
	size_t index;
};

static int keyed_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->output, b->output);
	if (c)
		return c;
	return (a->index > b->index) - (a->index < b->index);
}

static int index_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	return (a->index > b->index) - (a->index < b->index);
}

/* Returns the last entry of every output of v, in file order, in a new array (*out). */
static size_t keep_latest(struct arena *a, const struct ninja_log_entry *v, size_t n,
                          struct ninja_log_entry **out)
{
	struct keyed *k = arena_calloc(a, n + 1, sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){v[i].output, i};
	qsort(k, n, sizeof(*k), keyed_cmp);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || strcmp(k[i].output, k[i + 1].output))
			k[m++] = k[i];
	qsort(k, m, sizeof(*k), index_cmp);
	struct ninja_log_entry *r = arena_calloc(a, m + 1, sizeof(*r));
	for (size_t i = 0; i < m; i++)
		r[i] = v[k[i].index];
	*out = r;
	return m;
}

/* Parses the entries of text into *out; *run_start gets the index where the last run begins. */
static size_t parse(struct arena *a, const char *text, struct ninja_log_entry **out,
                    size_t *run_start_out)
{
	size_t cap = 64, len = 0, run_start = 0;
	struct ninja_log_entry *v = arena_calloc(a, cap, sizeof(*v));
	long long prev_end = -1;
	for (const char *s = text; *s;) {
		size_t ll = strcspn(s, "\n");
		const char *line = s;
		s += ll + (s[ll] == '\n');
		if (line[0] == '#')
			continue;
		/* start, end, mtime, output: the fields before the output are numbers. */
		char *p;
		long long st = strtoll(line, &p, 10);
		if (*p != '\t')
			continue;
		long long en = strtoll(p + 1, &p, 10);
		if (*p != '\t')
			continue;
		strtoll(p + 1, &p, 10);
		if (*p != '\t')
			continue;
		const char *o = p + 1;
		size_t ol = strcspn(o, "\t\n");
		if (ol == 0)
			continue;
		/* ninja appends an entry when a step ends, so end times rise within one run and
		 * fall back where the next run begins. */
		if (en < prev_end)
			run_start = len;
		prev_end = en;
		if (len == cap) {
			v = arena_realloc(a, v, cap, 2 * cap, sizeof(*v));
			cap *= 2;
		}
		v[len++] = (struct ninja_log_entry){st, en, arena_strndup(a, o, ol),
		                                    (size_t)(line - text)};
	}
	*out = v;
	*run_start_out = run_start;
	return len;
}

struct ninja_log_mark ninja_log_mark(struct arena *a, const char *build_dir)
{
	struct os_stat st;
	if (!os_stat(os_join(a, build_dir, ".ninja_log"), &st))
		return (struct ninja_log_mark){0, 0};
	return (struct ninja_log_mark){(unsigned long long)st.size, (unsigned long long)st.ino};
}

bool ninja_log_load(struct arena *a, struct diag *d, const char *build_dir, struct ninja_log *log)
{
	*log = (struct ninja_log){0};
	const char *path = os_join(a, build_dir, ".ninja_log");
	struct os_stat st;
	if (!os_stat(path, &st))
		return true; /* no log yet: a first build */
	struct source text;
	if (!os_read_file(a, d, path, &text))
		return false;
	log->inode = (unsigned long long)st.ino;
	log->n = parse(a, text.text, &log->v, &log->run_start);
	return true;
}

size_t ninja_log_view(struct arena *a, const struct ninja_log *log, enum ninja_log_view view,
                      struct ninja_log_entry **out)
{
	if (view == NINJA_LOG_LAST_RUN) {
		*out = log->v + log->run_start;
		return log->n - log->run_start;
	}
	return keep_latest(a, log->v, log->n, out);
}

size_t ninja_log_run(const struct ninja_log *log, const struct ninja_log_mark *before,
                     struct ninja_log_entry **out)
{
	if (log->inode != before->inode) { /* rewritten (recompacted), or new */
		*out = log->v + log->run_start;
		return log->n - log->run_start;
	}
	size_t i = 0;
	while (i < log->n && log->v[i].at < before->size)
		i++;
	*out = log->v + i;
	return log->n - i;
}

bool ninja_target_clean(const char *ninja, const char *build_dir, const char *target)
{
	const char *argv[] = {ninja, "-C", build_dir, "-n", target, NULL};
	struct os_run run = {.argv = argv, .capture = true, .probe = true};
	struct strbuf out = {0};
	int status = 1;
	struct diag quiet = {0}; /* a ninja that cannot answer: not up to date */
	bool ok = os_run(&quiet, &run, &out, &status) && status == 0 &&
	          strstr(sb_str(&out), "no work to do") != NULL;
	sb_release(&out);
	return ok;
}
