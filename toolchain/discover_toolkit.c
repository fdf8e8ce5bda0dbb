/* discover_toolkit.c: finds the CUDA toolkits of this machine (the explicit table, $CUDA_HOME,
 * PATH, /usr/local, /opt, cuwheel's cache), follows nvcc wrappers to their toolkit and asks
 * each nvcc its version and targets, through a cache. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "standards/json_values.h"
#include "standards/version.h"
#include "toolchain/discover_internal.h"
#include "toolchain/probe.h"

/* Bump when what is stored for nvcc changes: older cache files are rebuilt. */
#define NVCC_CACHE_FORMAT 3

/* Runs argv and returns its merged output, or NULL when it could not start; one that runs
 * longer than x->timeout_s is killed (*status OS_STATUS_TIMED_OUT). */
static const char *run_out(struct disc *x, const char *const *argv, int *status)
{
	struct diag quiet = {0};
	struct strbuf sb = {0};
	struct os_run r = {.argv = argv, .capture = true, .timeout_s = x->timeout_s, .probe = true};
	if (!os_run(&quiet, &r, &sb, status)) {
		sb_release(&sb);
		return NULL;
	}
	return sb_to_arena(&sb, x->a);
}

/* The first line of what nvcc printed, cut at 200 bytes and escaped for a terminal. */
static const char *first_line(struct arena *a, const char *s)
{
	while (*s == '\n' || *s == '\r' || *s == ' ')
		s++;
	size_t n = strcspn(s, "\r\n");
	const char *more = n > 200 ? "..." : "";
	return arena_printf(a, "%s%s", esc_mem(a, ESC_TERM, s, n > 200 ? 200 : n), more);
}

struct nvcc_facts {
	const char *version, *code, *arch; /* raw outputs; code/arch NULL when nvcc cannot list */
	unsigned lacks;                    /* TOOLCHAIN_LACKS_* */
};

static bool nvcc_cache_load(struct disc *x, const char *file, const char *nvcc,
                            struct nvcc_facts *f)
{
	struct diag quiet = {0};
	struct source src;
	if (!os_exists(file) || !os_read_file(x->a, &quiet, file, &src))
		return false;
	json_t *c = json_loads(src.text, 0, NULL);
	if (!c)
		return false;
	const char *path = json_string_value(json_object_get(c, "nvcc"));
	const char *ver = json_string_value(json_object_get(c, "version"));
	bool ok = json_integer_value(json_object_get(c, "format")) == NVCC_CACHE_FORMAT && path &&
	          strcmp(path, nvcc) == 0 && ver &&
	          json_integer_value(json_object_get(c, "mtime")) == os_mtime_ns(nvcc);
	if (ok) {
		const char *code = json_string_value(json_object_get(c, "list_gpu_code"));
		const char *arch = json_string_value(json_object_get(c, "list_gpu_arch"));
		f->version = arena_strdup(x->a, ver);
		f->code = code ? arena_strdup(x->a, code) : NULL;
		f->arch = arch ? arena_strdup(x->a, arch) : NULL;
		f->lacks = (unsigned)json_integer_value(json_object_get(c, "lacks"));
	}
	json_decref(c);
	return ok;
}

static void nvcc_cache_store(struct disc *x, const char *file, const char *nvcc,
                             const struct nvcc_facts *f)
{
	json_t *c =
	    json_pack("{s:i, s:s, s:I, s:s, s:s?, s:s?, s:i}", "format", NVCC_CACHE_FORMAT, "nvcc",
	              nvcc, "mtime", (json_int_t)os_mtime_ns(nvcc), "version", f->version,
	              "list_gpu_code", f->code, "list_gpu_arch", f->arch, "lacks", (int)f->lacks);
	char *text = c ? json_dump_text(x->a, c, JSON_SORT_KEYS | JSON_INDENT(1)) : NULL;
	struct diag quiet = {0};
	if (text && !os_write_atomic(&quiet, file, text, strlen(text), 0644))
		diag_path(x->d, DIAG_WARNING, file, "cannot write the nvcc cache");
	json_decref(c);
}

/* Asks nvcc its version and targets (about 100 ms a call), through the cache when it can. */
static bool nvcc_query(struct disc *x, const char *root, const char *nvcc, struct nvcc_facts *f,
                       const char **err)
{
	const char *file = NULL;
	if (x->cache_dir) {
		file = arena_printf(x->a, "%s/nvcc-%s.json", x->cache_dir, probe_hash(x->a, nvcc));
		if (nvcc_cache_load(x, file, nvcc, f))
			return true;
	}
	int st;
	const char *vargv[] = {nvcc, "--version", NULL};
	f->version = run_out(x, vargv, &st);
	if (f->version && st == OS_STATUS_TIMED_OUT) {
		*err = arena_printf(x->a,
		                    "nvcc --version gave no answer in %d s "
		                    "(CUWHEEL_PROBE_TIMEOUT): killed",
		                    x->timeout_s);
		return false;
	}
	if (f->version && st == OS_STATUS_TOO_MUCH_OUTPUT) {
		*err = arena_printf(x->a,
		                    "nvcc --version printed more than %d bytes (the limit of a "
		                    "probe's answer): killed",
		                    OS_OUTPUT_MAX);
		return false;
	}
	if (!f->version || st != 0) {
		*err = f->version ? arena_printf(x->a, "nvcc --version failed (exit %d): %s", st,
		                                 first_line(x->a, f->version))
		                  : "cannot run nvcc";
		return false;
	}
	const char *cargv[] = {nvcc, "--list-gpu-code", NULL};
	f->code = run_out(x, cargv, &st);
	if (st != 0)
		f->code = NULL;
	const char *aargv[] = {nvcc, "--list-gpu-arch", NULL};
	f->arch = run_out(x, aargv, &st);
	if (st != 0)
		f->arch = NULL;
	/* Which of the options cuwheel adds this nvcc knows (11.8 and 12.4 differ from 13.x). */
	const char *hargv[] = {nvcc, "--help", NULL};
	const char *help = run_out(x, hargv, &st);
	f->lacks = toolchain_nvcc_lacks(x->a, root, st == 0 ? help : NULL);
	if (file)
		nvcc_cache_store(x, file, nvcc, f);
	return true;
}

/* Parses "Cuda compilation tools, release 13.0, V13.0.88". */
static bool parse_nvcc_version(struct arena *a, const char *out, struct toolkit *tk)
{
	const char *r = strstr(out, "release ");
	if (!r || sscanf(r + 8, "%d.%d", &tk->major, &tk->minor) != 2)
		return false;
	const char *v = strstr(r, ", V");
	/* Only digits and dots: the version is shown, compared and put in paths. */
	if (v && strspn(v + 3, "0123456789.") > 0 &&
	    strchr(" \t\r\n", v[3 + strspn(v + 3, "0123456789.")]))
		tk->version = arena_strndup(a, v + 3, strspn(v + 3, "0123456789."));
	else
		tk->version = arena_printf(a, "%d.%d", tk->major, tk->minor);
	return true;
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* Collects the numbers of the "sm_90" / "compute_90" words of out, sorted and unique; the
 * "a"/"f" variants fold into their base number. */
static void parse_targets(struct arena *a, const char *out, const char *prefix, int **v, size_t *n)
{
	size_t cap = 0, plen = strlen(prefix);
	*v = NULL;
	*n = 0;
	for (const char *p = out ? strstr(out, prefix) : NULL; p; p = strstr(p + 1, prefix)) {
		if (p != out && p[-1] != '\n' && p[-1] != ' ' && p[-1] != '\t')
			continue;
		if (p[plen] < '0' || p[plen] > '9')
			continue;
		int sm = atoi(p + plen);
		bool seen = false;
		for (size_t i = 0; i < *n; i++)
			seen |= (*v)[i] == sm;
		if (seen)
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			*v = arena_realloc(a, *v, cap, nc, sizeof(**v));
			cap = nc;
		}
		(*v)[(*n)++] = sm;
	}
	if (*n)
		qsort(*v, *n, sizeof(**v), cmp_int);
}

/* Returns dir/<sub> when it holds name, else the first dir/targets/<*>/<sub> that does. */
static const char *find_in_root(struct disc *x, const char *root, const char *sub,
                                const char *const *names)
{
	struct strv cands = {0};
	strv_push(x->a, &cands, os_join(x->a, root, sub));
	if (strcmp(sub, "lib64") != 0) {
		struct strv targets = {0};
		const char *tdir = os_join(x->a, root, "targets");
		if (disc_list_dir(x->a, tdir, &targets))
			for (size_t i = 0; i < targets.n; i++)
				strv_push(x->a, &cands,
				          arena_printf(x->a, "%s/%s/%s", tdir, targets.v[i], sub));
	}
	for (size_t i = 0; i < cands.n; i++)
		for (size_t k = 0; names[k]; k++)
			if (os_exists(os_join(x->a, cands.v[i], names[k])))
				return os_realpath(x->a, cands.v[i]);
	return NULL;
}

static void toolkit_push(struct disc *x, const struct toolkit *tk)
{
	struct discovery *ds = x->out;
	if (ds->n_toolkits == x->cap_toolkits) {
		size_t cap = x->cap_toolkits ? x->cap_toolkits * 2 : 8;
		ds->toolkits = arena_realloc(x->a, ds->toolkits, ds->n_toolkits, cap, sizeof(*tk));
		x->cap_toolkits = cap;
	}
	ds->toolkits[ds->n_toolkits++] = *tk;
}

/* NVIDIA's nvcc reads bin/nvcc.profile beside itself; a bin/nvcc without one is a wrapper (a
 * script that execs a toolkit's nvcc, as /usr/local/bin/nvcc on some images). Taking the
 * wrapper's parent for the root would give a "toolkit" whose include/, lib/ and cudafe++ are
 * whatever else lies there. The wrapped nvcc names its own directory: `nvcc -dryrun` prints
 * `_HERE_=DIR`. Returns the root to use (the given one, or the wrapped nvcc's) and sets *note
 * to what was done; NULL with *note the reason when the nvcc says no _HERE_. */
static const char *real_root(struct disc *x, const char *root, const char **note)
{
	const char *nvcc = os_join(x->a, root, "bin/nvcc");
	*note = NULL;
	if (!os_is_exec(nvcc) || os_exists(os_join(x->a, root, "bin/nvcc.profile")))
		return root;
	int st;
	const char *argv[] = {nvcc, "-dryrun", "-E", "-x", "cu", "/dev/null", NULL};
	const char *out = run_out(x, argv, &st);
	const char *here = out && st >= 0 ? strstr(out, "_HERE_=") : NULL;
	if (!here) {
		*note = arena_printf(x->a,
		                     "%s has no nvcc.profile beside it and `nvcc -dryrun` names no "
		                     "_HERE_: not NVIDIA's nvcc driver",
		                     nvcc);
		return NULL;
	}
	here += strlen("_HERE_=");
	const char *bin = os_realpath(x->a, arena_strndup(x->a, here, strcspn(here, "\r\n")));
	size_t n = bin ? strlen(bin) : 0;
	if (n < 5 || strcmp(bin + n - 4, "/bin") != 0 ||
	    !os_exists(os_join(x->a, bin, "nvcc.profile"))) {
		*note =
		    arena_printf(x->a, "%s wraps an nvcc whose _HERE_ (%s) is not a toolkit's bin/",
		                 nvcc, bin ? esc_str(x->a, ESC_TERM, bin) : first_line(x->a, here));
		return NULL;
	}
	const char *real = arena_strndup(x->a, bin, n - 4);
	*note = arena_printf(
	    x->a, "%s is a wrapper (no nvcc.profile beside it): its nvcc is %s/nvcc", nvcc, bin);
	return real;
}

/* Looks at one candidate toolkit (a root or an nvcc) and records what it is. want is the
 * version the explicit table or the cache directory name says it must be (NULL: any). */
static void toolkit_try(struct disc *x, const char *where, const char *path, const char *found_by,
                        const char *want)
{
	bool warn = strcmp(found_by, "explicit") == 0;
	const char *root = NULL;
	size_t plen = strlen(path);
	if (!os_exists(path) && !os_is_dir(path)) {
		disc_looked_add(x, "toolkit", where, "%s does not exist", path);
		if (warn)
			diag_path(x->d, DIAG_WARNING, path,
			          "CUDA %s from the toolkits table does not exist", want);
		return;
	}
	if (!os_is_dir(path)) {
		/* An nvcc rather than a root: the toolkit is the parent of its bin/. */
		const char *real = os_realpath(x->a, path);
		size_t n = real ? strlen(real) : 0;
		if (plen < 5 || strcmp(path + plen - 4, "nvcc") != 0 || !real || n < 10 ||
		    strcmp(real + n - 9, "/bin/nvcc") != 0) {
			disc_looked_add(x, "toolkit", where,
			                "%s is neither a directory nor a toolkit's bin/nvcc", path);
			if (warn)
				diag_path(x->d, DIAG_WARNING, path,
				          "CUDA %s from the toolkits table is not a toolkit", want);
			return;
		}
		root = arena_strndup(x->a, real, n - 9);
	} else {
		root = os_realpath(x->a, path);
	}
	const char *wrapped = NULL;
	root = real_root(x, root, &wrapped);
	if (!root) {
		disc_looked_add(x, "toolkit", where, "%s", wrapped);
		return;
	}
	if (wrapped)
		disc_looked_add(x, "toolkit", where, "%s", wrapped);
	for (size_t i = 0; i < x->out->n_toolkits; i++) {
		const struct toolkit *o = &x->out->toolkits[i];
		if (strcmp(o->root, root) == 0) {
			disc_looked_add(x, "toolkit", where, "duplicate of %s (found by %s)",
			                o->root, o->found_by);
			return;
		}
	}
	struct toolkit tk = {.root = root, .found_by = found_by};
	tk.nvcc = os_join(x->a, root, "bin/nvcc");
	static const char *const hdr[] = {"cuda_runtime.h", NULL};
	static const char *const libs[] = {"libcudart_static.a", "libcudart.so", NULL};
	if (!os_is_exec(tk.nvcc)) {
		disc_looked_add(x, "toolkit", where, "no nvcc in %s/bin/", root);
	} else if (!(tk.include_dir = find_in_root(x, root, "include", hdr))) {
		disc_looked_add(x, "toolkit", where,
		                "no include/cuda_runtime.h in %s: not a toolkit root", root);
	} else {
		struct nvcc_facts f = {0};
		const char *err = NULL;
		if (!nvcc_query(x, root, tk.nvcc, &f, &err)) {
			disc_looked_add(x, "toolkit", where, "%s", err);
		} else if (!parse_nvcc_version(x->a, f.version, &tk)) {
			disc_looked_add(x, "toolkit", where,
			                "nvcc --version printed no release: %s",
			                first_line(x->a, f.version));
		} else if (want && !disc_version_matches(want, tk.version, tk.major, tk.minor)) {
			disc_looked_add(x, "toolkit", where,
			                "version mismatch: expected %s, nvcc says %s", want,
			                esc_str(x->a, ESC_TERM, tk.version));
		} else {
			parse_targets(x->a, f.code, "sm_", &tk.sm, &tk.n_sm);
			parse_targets(x->a, f.arch, "compute_", &tk.compute, &tk.n_compute);
			tk.lib_dir = find_in_root(x, root, "lib64", libs);
			if (!tk.lib_dir)
				tk.lib_dir = find_in_root(x, root, "lib", libs);
			tk.has_cudart_static =
			    tk.lib_dir &&
			    os_exists(os_join(x->a, tk.lib_dir, "libcudart_static.a"));
			tk.nvcc_lacks = f.lacks;
			toolchain_pick_host(x->a, x->req->env, tk.include_dir, tk.version,
			                    &tk.host);
			disc_looked_add(x, "toolkit", where, "found %s%s", tk.version,
			                tk.n_sm ? "" : " (nvcc cannot list its GPU targets)");
			toolkit_push(x, &tk);
			return;
		}
	}
	if (warn)
		diag_path(x->d, DIAG_WARNING, path,
		          "CUDA %s from the toolkits table was not usable: %s", want,
		          x->out->looked[x->out->n_looked - 1].result);
}

/* Tries every entry of dir whose name starts with prefix. */
static void toolkit_scan(struct disc *x, const char *dir, const char *prefix, const char *found_by)
{
	struct strv names = {0};
	if (!disc_list_dir(x->a, dir, &names)) {
		disc_looked_add(x, "toolkit", arena_printf(x->a, "%s/%s*", dir, prefix),
		                "%s: not a directory", dir);
		return;
	}
	size_t seen = 0;
	for (size_t i = 0; i < names.n; i++) {
		if (strncmp(names.v[i], prefix, strlen(prefix)) != 0)
			continue;
		seen++;
		const char *p = os_join(x->a, dir, names.v[i]);
		toolkit_try(x, p, p, found_by, NULL);
	}
	if (!seen)
		disc_looked_add(x, "toolkit", arena_printf(x->a, "%s/%s*", dir, prefix),
		                "nothing there");
}

static void toolkit_cache_scan(struct disc *x)
{
	const char *dir = os_join(x->a, cuwheel_cache_dir(x->a, x->req->env), "toolkits");
	struct strv names = {0};
	if (!disc_list_dir(x->a, dir, &names)) {
		disc_looked_add(x, "toolkit", dir,
		                "not a directory (no toolkit provisioned by cuwheel)");
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *p = os_join(x->a, dir, names.v[i]);
		if (names.v[i][0] == '.' || !os_is_dir(p))
			continue;
		if (!os_exists(os_join(x->a, p, "cuwheel-toolkit.json"))) {
			disc_looked_add(x, "toolkit", p,
			                "incomplete: no cuwheel-toolkit.json, ignored");
			continue;
		}
		toolkit_try(x, p, p, "cache", names.v[i]);
	}
}

static void toolkit_env(struct disc *x, const char *var)
{
	const char *v = env_nonempty(x->req->env, var);
	const char *where = arena_printf(x->a, "$%s", var);
	if (!v)
		disc_looked_add(x, "toolkit", where, "not set");
	else
		toolkit_try(x, arena_printf(x->a, "$%s=%s", var, v), v, var, NULL);
}

/* Where two roots hold the same version, the one the user named wins, then a system install,
 * then cuwheel's own cache: a provisioned root holds only the compiler, the runtime and CCCL,
 * while a system install also has the libraries' headers (cuBLAS, cuSPARSE...) that a torch
 * extension's ATen headers include. */
static int toolkit_rank(const struct toolkit *t)
{
	if (strcmp(t->found_by, "explicit") == 0)
		return 0;
	return strcmp(t->found_by, "cache") == 0 ? 2 : 1;
}

static int cmp_toolkit(const void *x, const void *y)
{
	const struct toolkit *a = x, *b = y;
	int c = -version_dotted_cmp(a->version, b->version);
	if (!c)
		c = toolkit_rank(a) - toolkit_rank(b);
	return c ? c : strcmp(a->root, b->root);
}

void disc_find_toolkits(struct disc *x)
{
	const struct str_pairs *t = &x->req->toolkits;
	for (size_t i = 0; i < t->n; i++)
		toolkit_try(x, arena_printf(x->a, "toolkits.\"%s\"", t->v[i].key),
		            disc_explicit_path(x, t->v[i].value), "explicit", t->v[i].key);
	toolkit_env(x, "CUDA_HOME");
	toolkit_env(x, "CUDA_PATH");
	struct arena *a = x->a;
	const char *nvcc = os_which(a, x->req->env, "nvcc");
	if (nvcc)
		toolkit_try(x, nvcc, nvcc, "PATH", NULL);
	else
		disc_looked_add(x, "toolkit", "PATH", "no nvcc on PATH");
	const char *usr_local = arena_printf(a, "%s/usr/local", x->sysroot);
	const char *cuda = os_join(a, usr_local, "cuda");
	if (os_is_dir(cuda))
		toolkit_try(x, cuda, cuda, "/usr/local/cuda", NULL);
	else
		disc_looked_add(x, "toolkit", cuda, "not a directory");
	toolkit_scan(x, usr_local, "cuda-", "/usr/local/cuda-*");
	toolkit_scan(x, arena_printf(a, "%s/opt", x->sysroot), "cuda", "/opt/cuda*");
	toolkit_cache_scan(x);
	if (x->out->n_toolkits)
		qsort(x->out->toolkits, x->out->n_toolkits, sizeof(struct toolkit), cmp_toolkit);
}
