/* probe.c: runs each Python interpreter once with an embedded script, in parallel, and caches
 * the JSON it prints. */
#include "toolchain/probe.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-sys.h"
#include "base/pool.h"
#include "base/strbuf.h"
#include "standards/json_values.h"

/* Printed before the JSON line so that whatever else the interpreter writes (torch warnings on
 * the merged stderr, a sitecustomize banner) cannot be mistaken for the answer. */
#define PROBE_MARK "@@cuwheel-probe@@"

/* toolchain/probe.py, embedded at build time (cmake/embed.cmake): the script the interpreter
 * runs (-c), which prints PROBE_MARK and then its answer. */
extern const unsigned char probe_py[];

char *probe_hash(struct arena *a, const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return arena_printf(a, "%016llx", (unsigned long long)h);
}

char *probe_cache_path(struct arena *a, const char *cache_dir, const char *interp)
{
	return arena_printf(a, "%s/probe-%s.json", cache_dir, probe_hash(a, interp));
}

/* Turns "linux-x86_64" / "macosx-11.0-arm64" into a wheel platform tag. */
static const char *platform_tag(struct arena *a, const char *plat)
{
	char *t = arena_strdup(a, plat);
	for (char *p = t; *p; p++)
		if (*p == '-' || *p == '.')
			*p = '_';
	return t;
}

static void parse_torch(struct arena *a, json_t *t, struct torch_info *ti)
{
	ti->cxx11_abi = -1;
	ti->openmp = -1;
	if (!json_is_object(t))
		return;
	ti->present = json_is_true(json_object_get(t, "present"));
	ti->error = json_str_read(a, t, "error");
	ti->from_files = json_is_true(json_object_get(t, "from_files"));
	ti->unread = json_str_read(a, t, "unread");
	if (!ti->present)
		return;
	ti->version = json_str_read(a, t, "version");
	if (ti->version) {
		/* "2.11.0+cu130" -> "2.11" */
		const char *dot = strchr(ti->version, '.');
		size_t n = dot ? strspn(dot + 1, "0123456789") + (size_t)(dot + 1 - ti->version)
		               : strlen(ti->version);
		ti->version_short = arena_strndup(a, ti->version, n);
	}
	ti->cuda = json_str_read(a, t, "cuda");
	json_t *abi = json_object_get(t, "cxx11_abi");
	ti->cxx11_abi = json_is_integer(abi) ? (int)json_integer_value(abi) : -1;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(t, "include_dirs"), i, v)
	{
		if (json_is_string(v))
			strv_push(a, &ti->include_dirs, arena_strdup(a, json_string_value(v)));
	}
	ti->lib_dir = json_str_read(a, t, "lib_dir");
	json_t *omp = json_object_get(t, "openmp");
	ti->openmp = json_is_boolean(omp) ? json_is_true(omp) : -1;
	ti->pybind11_compiler_type = json_str_read(a, t, "pybind11_compiler_type");
	ti->pybind11_stdlib = json_str_read(a, t, "pybind11_stdlib");
	ti->pybind11_build_abi = json_str_read(a, t, "pybind11_build_abi");
	json_t *fl = json_object_get(t, "abi_flags");
	ti->abi_flags_known = json_is_array(fl);
	json_array_foreach(fl, i, v)
	{
		if (json_is_string(v))
			strv_push(a, &ti->abi_flags, arena_strdup(a, json_string_value(v)));
	}
}

/* The key of the first string in v (an object or array, walked to depth 4) that holds a
 * control byte (C0, DEL or a C1 control), or NULL: such a string from an interpreter could
 * steer the terminal it is printed on, and no real path or version holds one. */
static const char *json_control_key(json_t *v, const char *key, int depth)
{
	if (json_is_string(v)) {
		for (const unsigned char *p = (const unsigned char *)json_string_value(v); *p; p++)
			if (*p < 0x20 || *p == 0x7F ||
			    (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
				return key;
		return NULL;
	}
	if (depth > 4)
		return NULL;
	const char *k, *bad = NULL;
	json_t *e;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach(v, k, e) if (!bad) bad = json_control_key(e, k, depth + 1);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e) if (!bad) bad = json_control_key(e, key, depth + 1);
	}
	return bad;
}

static bool parse_obj(struct arena *a, json_t *r, struct interp *ip, const char **executable,
                      const char **err)
{
	const char *bad = json_control_key(r, "answer", 0);
	if (bad) {
		*err = arena_printf(a, "the probe's \"%s\" holds a control character",
		                    esc_str(a, ESC_TERM, bad));
		return false;
	}
	if (!json_is_object(r) || !json_is_integer(json_object_get(r, "major")) ||
	    !json_is_integer(json_object_get(r, "minor")) || !json_str_read(a, r, "version")) {
		*err = "the probe printed JSON without a version";
		return false;
	}
	memset(ip, 0, sizeof(*ip));
	ip->version = json_str_read(a, r, "version");
	ip->major = (int)json_integer_value(json_object_get(r, "major"));
	ip->minor = (int)json_integer_value(json_object_get(r, "minor"));
	ip->implementation = json_str_read(a, r, "implementation");
	ip->abiflags = json_str_read(a, r, "abiflags");
	if (!ip->abiflags)
		ip->abiflags = "";
	ip->freethreaded = json_is_true(json_object_get(r, "gil_disabled"));
	ip->ext_suffix = json_str_read(a, r, "ext_suffix");
	ip->soabi = json_str_read(a, r, "soabi");
	ip->include_dir = json_str_read(a, r, "include");
	const char *plat = json_str_read(a, r, "platform");
	ip->platform = plat ? platform_tag(a, plat) : NULL;
	if (executable)
		*executable = json_str_read(a, r, "executable");
	ip->torch.cxx11_abi = -1;
	ip->torch.openmp = -1;
	json_t *t = json_object_get(r, "torch");
	if (t)
		parse_torch(a, t, &ip->torch);
	json_t *pb = json_object_get(r, "pybind11");
	ip->pybind11.include_dir = json_str_read(a, pb, "include");
	ip->pybind11.version = json_str_read(a, pb, "version");
	ip->pybind11.error = json_str_read(a, pb, "error");
	return true;
}

/* One interpreter run, done by a worker thread: no arena, no diag, only heap buffers. */
struct probe_task {
	const char *path;
	const char *mode; /* probe.py's argument: "torch", "torch-files" or NULL */
	int timeout_s;
	struct strbuf out;
	int status;
	bool started;
};

/* Runs the interpreter with the isolation flags given (NULL-terminated) and the script. */
static void task_run_flags(struct probe_task *t, const char *const *flags)
{
	const char *argv[8];
	size_t k = 0;
	argv[k++] = t->path;
	while (*flags)
		argv[k++] = *flags++;
	argv[k++] = "-c";
	argv[k++] = (const char *)probe_py;
	if (t->mode)
		argv[k++] = t->mode;
	argv[k] = NULL;
	struct diag quiet = {0};
	struct os_run r = {.argv = argv, .capture = true, .timeout_s = t->timeout_s, .probe = true};
	sb_reset(&t->out);
	t->started = os_run(&quiet, &r, &t->out, &t->status);
}

static void task_run(struct probe_task *t)
{
	static const char *const isolated[] = {"-I", NULL};
	static const char *const old_isolated[] = {"-E", "-s", NULL};
	task_run_flags(t, isolated);
	/* Python 2 has no -I ("Unknown option: -I"); -E -s is the closest it offers. */
	if (t->started && t->status > 0 && strstr(sb_str(&t->out), "option: -I"))
		task_run_flags(t, old_isolated);
}

/* pool_fn: runs tasks[i] (ctx is the task array). */
static void task_job(void *ctx, size_t i)
{
	task_run((struct probe_task *)ctx + i);
}

/* Runs the tasks, several at once. */
static void tasks_run(struct probe_task *tasks, size_t n, int jobs_max)
{
	size_t nthreads = jobs_max > 0 ? (size_t)jobs_max : (size_t)os_cpu_count();
	if (nthreads < 4)
		nthreads = 4; /* probes mostly wait on imports and disk, not on a CPU */
	pool_run(n, nthreads, task_job, tasks);
}

/* Returns the cached probe object when its key matches (a new reference), else NULL. */
static json_t *cache_load(struct arena *a, const char *file, const char *interp, bool torch)
{
	if (!os_exists(file))
		return NULL;
	struct diag quiet = {0};
	struct source src;
	if (!os_read_file(a, &quiet, file, &src))
		return NULL;
	json_t *c = json_loads(src.text, 0, NULL);
	if (!c)
		return NULL;
	json_t *probe = json_object_get(c, "probe");
	const char *path = json_string_value(json_object_get(c, "path"));
	bool match = json_integer_value(json_object_get(c, "format")) == PROBE_CACHE_FORMAT &&
	             path && strcmp(path, interp) == 0 &&
	             json_integer_value(json_object_get(c, "mtime")) == os_mtime_ns(interp) &&
	             json_is_boolean(json_object_get(c, "torch")) &&
	             json_is_true(json_object_get(c, "torch")) == torch && json_is_object(probe);
	/* Installing or removing torch or pybind11 changes site-packages, not the interpreter:
	 * the site-packages mtime is part of the key too. */
	if (match) {
		const char *purelib = json_string_value(json_object_get(probe, "purelib"));
		match = purelib && json_integer_value(json_object_get(c, "purelib_mtime")) ==
		                       os_mtime_ns(purelib);
	}
	json_t *out = match ? json_incref(probe) : NULL;
	json_decref(c);
	return out;
}

static void cache_store(struct arena *a, struct diag *d, const char *file, const char *interp,
                        bool torch, json_t *probe)
{
	const char *purelib = json_string_value(json_object_get(probe, "purelib"));
	json_t *c = json_pack("{s:i, s:s, s:I, s:b, s:I, s:O}", "format", PROBE_CACHE_FORMAT,
	                      "path", interp, "mtime", (json_int_t)os_mtime_ns(interp), "torch",
	                      torch, "purelib_mtime",
	                      (json_int_t)(purelib ? os_mtime_ns(purelib) : -1), "probe", probe);
	char *text = c ? json_dump_text(a, c, JSON_SORT_KEYS | JSON_INDENT(1)) : NULL;
	if (text) {
		struct diag local = {0};
		if (!os_write_atomic(&local, file, text, strlen(text), 0644))
			diag_path(d, DIAG_WARNING, file, "cannot write the probe cache");
	}
	json_decref(c);
}

/* Returns the first non-empty line of s, for "probe failed: <line>". */
/* The first line of what a probe printed, cut at 200 bytes and escaped for a terminal. */
static const char *first_line(struct arena *a, const char *s)
{
	while (*s == '\n' || *s == '\r')
		s++;
	size_t n = strcspn(s, "\r\n");
	const char *more = n > 200 ? "..." : "";
	return arena_printf(a, "%s%s", esc_mem(a, ESC_TERM, s, n > 200 ? 200 : n), more);
}

/* Takes the JSON from the last marked line of a run's output; NULL when there is none. */
static json_t *output_json(const char *out)
{
	const char *m = NULL;
	for (const char *p = strstr(out, PROBE_MARK); p; p = strstr(p + 1, PROBE_MARK))
		m = p;
	if (!m)
		return NULL;
	m += strlen(PROBE_MARK);
	return json_loadb(m, strcspn(m, "\n"), 0, NULL);
}

int probe_timeout(const char *const *env, const char **bad)
{
	*bad = NULL;
	const char *v = env_nonempty(env, "CUWHEEL_PROBE_TIMEOUT");
	if (!v)
		return 300;
	char *end;
	errno = 0;
	long s = strtol(v, &end, 10);
	if (errno || *end || end == v || s <= 0 || s > 86400) {
		*bad = v;
		return 300;
	}
	return (int)s;
}

void probe_run(struct arena *a, struct diag *d, const char *cache_dir, struct probe_job *jobs,
               size_t n, int jobs_max, int timeout_s)
{
	struct probe_task *tasks = arena_calloc(a, n ? n : 1, sizeof(*tasks));
	json_t **answers = arena_calloc(a, n ? n : 1, sizeof(*answers));
	size_t *idx = arena_calloc(a, n ? n : 1, sizeof(*idx));
	size_t nt = 0;
	for (size_t i = 0; i < n; i++) {
		jobs[i].ok = jobs[i].cached = false;
		jobs[i].error = NULL;
		if (cache_dir) {
			const char *file = probe_cache_path(a, cache_dir, jobs[i].path);
			answers[i] = cache_load(a, file, jobs[i].path, jobs[i].torch);
			if (answers[i]) {
				jobs[i].cached = true;
				continue;
			}
		}
		const char *mode = !jobs[i].torch        ? NULL
		                   : jobs[i].torch_files ? "torch-files"
		                                         : "torch";
		tasks[nt] =
		    (struct probe_task){.path = jobs[i].path, .mode = mode, .timeout_s = timeout_s};
		idx[nt++] = i;
	}
	tasks_run(tasks, nt, jobs_max);
	for (size_t k = 0; k < nt; k++) {
		struct probe_task *t = &tasks[k];
		struct probe_job *j = &jobs[idx[k]];
		const char *out = sb_str(&t->out);
		if (!t->started) {
			j->error = "cannot run it";
		} else if (t->status == OS_STATUS_TIMED_OUT) {
			j->error =
			    arena_printf(a,
			                 "no answer in %d s (CUWHEEL_PROBE_TIMEOUT): killed; "
			                 "does importing site-packages hang there?",
			                 timeout_s);
		} else if (t->status == OS_STATUS_TOO_MUCH_OUTPUT) {
			j->error =
			    arena_printf(a,
			                 "printed more than %d bytes (the limit of a probe's "
			                 "answer): killed",
			                 OS_OUTPUT_MAX);
		} else if (!(answers[idx[k]] = output_json(out))) {
			const char *line = first_line(a, out);
			j->error = *line ? arena_printf(a, "exit %d: %s", t->status, line)
			                 : arena_printf(a, "exit %d and no output", t->status);
		} else if (cache_dir && !j->torch_files) {
			cache_store(a, d, probe_cache_path(a, cache_dir, j->path), j->path,
			            j->torch, answers[idx[k]]);
		}
		sb_release(&t->out);
	}
	for (size_t i = 0; i < n; i++) {
		if (!answers[i])
			continue;
		const char *err = NULL;
		jobs[i].ok = parse_obj(a, answers[i], &jobs[i].info, &jobs[i].executable, &err);
		if (!jobs[i].ok)
			jobs[i].error = err;
		json_decref(answers[i]);
	}
}
