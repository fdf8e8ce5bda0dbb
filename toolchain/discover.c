/* discover.c: finds the CUDA toolkits and Python interpreters of this machine, and records
 * every place it looked and why what it saw there was or was not taken. */
#include "toolchain/discover.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/os.h"
#include "standards/version.h"
#include "toolchain/probe.h"

/* Bump when what is stored for nvcc changes: older cache files are rebuilt. */
#define NVCC_CACHE_FORMAT 2

struct pycand {
	const char *path; /* as found */
	const char *real; /* resolved, for de-duplication */
	const char *found_by;
	const char *want; /* explicit table: the version the user wrote */
};

struct disc {
	struct arena *a;
	struct diag *d;
	const struct discover_request *req;
	const char *cache_dir;
	const char *sysroot; /* "" unless a test moves /usr/local and /opt */
	struct discovery *out;
	size_t cap_toolkits;
	struct pycand *cands;
	size_t n_cands, cap_cands;
};

static void looked_add(struct disc *x, const char *what, const char *where, const char *fmt, ...)
    CW_PRINTF(4, 5);

static void looked_add(struct disc *x, const char *what, const char *where, const char *fmt, ...)
{
	struct discovery *ds = x->out;
	if (ds->n_looked == ds->cap_looked) {
		size_t cap = ds->cap_looked ? ds->cap_looked * 2 : 32;
		ds->looked =
		    arena_realloc(x->a, ds->looked, ds->n_looked, cap, sizeof(*ds->looked));
		ds->cap_looked = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	ds->looked[ds->n_looked++] =
	    (struct looked){what, arena_strdup(x->a, where), arena_vprintf(x->a, fmt, ap)};
	va_end(ap);
}

const char *cuwheel_cache_dir(struct arena *a, const char *const *env)
{
	const char *v;
	if ((v = env_nonempty(env, "CUWHEEL_CACHE_DIR")))
		return arena_strdup(a, v);
	if ((v = env_nonempty(env, "XDG_CACHE_HOME")))
		return os_join(a, v, "cuwheel");
	if ((v = env_nonempty(env, "HOME")))
		return os_join(a, v, ".cache/cuwheel");
	return "/tmp/cuwheel-cache";
}

/* os_list_dir, with the vector allocated first: os_list_dir qsorts out->v even when the
 * directory is empty, and qsort(NULL, 0) is undefined behaviour (UBSan stops there). */
static bool list_dir(struct arena *a, const char *dir, struct strv *out)
{
	if (!out->v) {
		strv_push(a, out, "");
		out->n = 0;
	}
	return os_list_dir(a, dir, out);
}

/* Runs argv and returns its merged output, or NULL when it could not start. */
static const char *run_out(struct arena *a, const char *const *argv, int *status)
{
	struct diag quiet = {0};
	struct strbuf sb = {0};
	struct os_run r = {.argv = argv, .capture = true};
	if (!os_run(&quiet, &r, &sb, status)) {
		sb_release(&sb);
		return NULL;
	}
	return sb_to_arena(&sb, a);
}

static const char *first_line(struct arena *a, const char *s)
{
	while (*s == '\n' || *s == '\r' || *s == ' ')
		s++;
	return arena_strndup(a, s, strcspn(s, "\r\n"));
}

/* ---- CUDA toolkits ---- */

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
	char *text = c ? json_dumps(c, JSON_SORT_KEYS | JSON_INDENT(1)) : NULL;
	struct diag quiet = {0};
	if (text && !os_write_atomic(&quiet, file, text, strlen(text), 0644))
		diag_path(x->d, DIAG_WARNING, file, "cannot write the nvcc cache");
	free(text);
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
	f->version = run_out(x->a, vargv, &st);
	if (!f->version || st != 0) {
		*err = f->version ? arena_printf(x->a, "nvcc --version failed (exit %d): %s", st,
		                                 first_line(x->a, f->version))
		                  : "cannot run nvcc";
		return false;
	}
	const char *cargv[] = {nvcc, "--list-gpu-code", NULL};
	f->code = run_out(x->a, cargv, &st);
	if (st != 0)
		f->code = NULL;
	const char *aargv[] = {nvcc, "--list-gpu-arch", NULL};
	f->arch = run_out(x->a, aargv, &st);
	if (st != 0)
		f->arch = NULL;
	/* Which of the options cuwheel adds this nvcc knows (11.8 and 12.4 differ from 13.x). */
	const char *hargv[] = {nvcc, "--help", NULL};
	const char *help = run_out(x->a, hargv, &st);
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
	if (v)
		tk->version = arena_strndup(a, v + 3, strcspn(v + 3, " \t\r\n"));
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
		if (list_dir(x->a, tdir, &targets))
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

/* True when want ("13.0" or "13.0.88") names the toolkit. */
static bool version_matches(const char *want, const char *full, int major, int minor)
{
	char mm[32];
	snprintf(mm, sizeof(mm), "%d.%d", major, minor);
	return strcmp(want, mm) == 0 || strcmp(want, full) == 0;
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

/* Looks at one candidate toolkit (a root or an nvcc) and records what it is. want is the
 * version the explicit table or the cache directory name says it must be (NULL: any). */
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
	const char *out = run_out(x->a, argv, &st);
	const char *here = out ? strstr(out, "_HERE_=") : NULL;
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
		                 nvcc, bin ? bin : here);
		return NULL;
	}
	const char *real = arena_strndup(x->a, bin, n - 4);
	*note = arena_printf(
	    x->a, "%s is a wrapper (no nvcc.profile beside it): its nvcc is %s/nvcc", nvcc, bin);
	return real;
}

static void toolkit_try(struct disc *x, const char *where, const char *path, const char *found_by,
                        const char *want)
{
	bool warn = strcmp(found_by, "explicit") == 0;
	const char *root = NULL;
	size_t plen = strlen(path);
	if (!os_exists(path) && !os_is_dir(path)) {
		looked_add(x, "toolkit", where, "%s does not exist", path);
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
			looked_add(x, "toolkit", where,
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
		looked_add(x, "toolkit", where, "%s", wrapped);
		return;
	}
	if (wrapped)
		looked_add(x, "toolkit", where, "%s", wrapped);
	for (size_t i = 0; i < x->out->n_toolkits; i++) {
		const struct toolkit *o = &x->out->toolkits[i];
		if (strcmp(o->root, root) == 0) {
			looked_add(x, "toolkit", where, "duplicate of %s (found by %s)", o->root,
			           o->found_by);
			return;
		}
	}
	struct toolkit tk = {.root = root, .found_by = found_by};
	tk.nvcc = os_join(x->a, root, "bin/nvcc");
	static const char *const hdr[] = {"cuda_runtime.h", NULL};
	static const char *const libs[] = {"libcudart_static.a", "libcudart.so", NULL};
	if (!os_is_exec(tk.nvcc)) {
		looked_add(x, "toolkit", where, "no nvcc in %s/bin/", root);
	} else if (!(tk.include_dir = find_in_root(x, root, "include", hdr))) {
		looked_add(x, "toolkit", where,
		           "no include/cuda_runtime.h in %s: not a toolkit root", root);
	} else {
		struct nvcc_facts f = {0};
		const char *err = NULL;
		if (!nvcc_query(x, root, tk.nvcc, &f, &err)) {
			looked_add(x, "toolkit", where, "%s", err);
		} else if (!parse_nvcc_version(x->a, f.version, &tk)) {
			looked_add(x, "toolkit", where, "nvcc --version printed no release: %s",
			           first_line(x->a, f.version));
		} else if (want && !version_matches(want, tk.version, tk.major, tk.minor)) {
			looked_add(x, "toolkit", where,
			           "version mismatch: expected %s, nvcc says %s", want, tk.version);
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
			looked_add(x, "toolkit", where, "found %s%s", tk.version,
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
	if (!list_dir(x->a, dir, &names)) {
		looked_add(x, "toolkit", arena_printf(x->a, "%s/%s*", dir, prefix),
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
		looked_add(x, "toolkit", arena_printf(x->a, "%s/%s*", dir, prefix),
		           "nothing there");
}

static void toolkit_cache_scan(struct disc *x)
{
	const char *dir = os_join(x->a, cuwheel_cache_dir(x->a, x->req->env), "toolkits");
	struct strv names = {0};
	if (!list_dir(x->a, dir, &names)) {
		looked_add(x, "toolkit", dir,
		           "not a directory (no toolkit provisioned by cuwheel)");
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *p = os_join(x->a, dir, names.v[i]);
		if (names.v[i][0] == '.' || !os_is_dir(p))
			continue;
		if (!os_exists(os_join(x->a, p, "cuwheel-toolkit.json"))) {
			looked_add(x, "toolkit", p, "incomplete: no cuwheel-toolkit.json, ignored");
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
		looked_add(x, "toolkit", where, "not set");
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

/* Paths in the pyproject's explicit tables are relative to the project, not to where cuwheel
 * was started. */
static const char *explicit_path(struct disc *x, const char *path)
{
	if (path[0] == '/' || !x->req->project_dir)
		return path;
	return os_join(x->a, x->req->project_dir, path);
}

static void find_toolkits(struct disc *x)
{
	const struct str_pairs *t = &x->req->toolkits;
	for (size_t i = 0; i < t->n; i++)
		toolkit_try(x, arena_printf(x->a, "toolkits.\"%s\"", t->v[i].key),
		            explicit_path(x, t->v[i].value), "explicit", t->v[i].key);
	toolkit_env(x, "CUDA_HOME");
	toolkit_env(x, "CUDA_PATH");
	struct arena *a = x->a;
	const char *nvcc = os_which(a, x->req->env, "nvcc");
	if (nvcc)
		toolkit_try(x, nvcc, nvcc, "PATH", NULL);
	else
		looked_add(x, "toolkit", "PATH", "no nvcc on PATH");
	const char *usr_local = arena_printf(a, "%s/usr/local", x->sysroot);
	const char *cuda = os_join(a, usr_local, "cuda");
	if (os_is_dir(cuda))
		toolkit_try(x, cuda, cuda, "/usr/local/cuda", NULL);
	else
		looked_add(x, "toolkit", cuda, "not a directory");
	toolkit_scan(x, usr_local, "cuda-", "/usr/local/cuda-*");
	toolkit_scan(x, arena_printf(a, "%s/opt", x->sysroot), "cuda", "/opt/cuda*");
	toolkit_cache_scan(x);
	if (x->out->n_toolkits)
		qsort(x->out->toolkits, x->out->n_toolkits, sizeof(struct toolkit), cmp_toolkit);
}

/* ---- Python interpreters ---- */

/* Adds an interpreter to probe, unless it is not executable or the same file was seen. */
static void cand_add(struct disc *x, const char *where, const char *path, const char *found_by,
                     const char *want)
{
	bool warn = strcmp(found_by, "explicit") == 0;
	if (!os_is_exec(path)) {
		looked_add(x, "python", where, "%s is not an executable file", path);
		if (warn)
			diag_path(x->d, DIAG_WARNING, path,
			          "Python %s from the pythons table is not an executable file",
			          want);
		return;
	}
	const char *real = os_realpath(x->a, path);
	/* A venv's bin/python links to its base interpreter, but it is another installation (its
	 * own site-packages: one venv per torch): its key names the venv too. */
	char *venv = arena_strdup(x->a, path);
	for (int up = 0; up < 2 && venv; up++) {
		char *sl = strrchr(venv, '/');
		if (sl)
			*sl = '\0';
		else
			venv = NULL;
	}
	if (real && venv && *venv && os_exists(os_join(x->a, venv, "pyvenv.cfg")))
		real = arena_printf(x->a, "%s (venv %s)", real, os_realpath(x->a, venv));
	for (size_t i = 0; i < x->n_cands; i++) {
		if (strcmp(x->cands[i].real, real) == 0) {
			looked_add(x, "python", where, "same file as %s", x->cands[i].path);
			return;
		}
	}
	if (x->n_cands == x->cap_cands) {
		size_t cap = x->cap_cands ? x->cap_cands * 2 : 16;
		x->cands = arena_realloc(x->a, x->cands, x->n_cands, cap, sizeof(*x->cands));
		x->cap_cands = cap;
	}
	x->cands[x->n_cands++] = (struct pycand){arena_strdup(x->a, path), real, found_by, want};
}

/* True for "python3.12" and "python3.13t". */
static bool is_python3x_name(const char *s)
{
	if (strncmp(s, "python3.", 8) != 0)
		return false;
	s += 8;
	size_t n = strspn(s, "0123456789");
	return n > 0 && (s[n] == '\0' || (s[n] == 't' && s[n + 1] == '\0'));
}

/* True when path is one of pyenv's shims (a bash script that re-dispatches through pyenv). */
static bool is_pyenv_shim(struct arena *a, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	(void)a;
	return n > 2 && buf[0] == '#' && buf[1] == '!' && strstr(buf, "pyenv");
}

static const char *pyenv_root(struct arena *a, const char *const *env)
{
	const char *v = env_nonempty(env, "PYENV_ROOT");
	if (v)
		return arena_strdup(a, v);
	v = env_nonempty(env, "HOME");
	return v ? os_join(a, v, ".pyenv") : NULL;
}

/* The versions pyenv makes active, as the shims resolve them: $PYENV_VERSION, else the
 * nearest .python-version from the project up, else $PYENV_ROOT/version. */
static struct strv pyenv_active(struct disc *x, const char *root)
{
	struct strv out = {0};
	const char *text = env_nonempty(x->req->env, "PYENV_VERSION");
	struct diag quiet = {0};
	struct source src;
	if (!text && x->req->project_dir) {
		char *dir = os_realpath(x->a, x->req->project_dir);
		while (!text && dir && *dir) {
			const char *f = os_join(x->a, dir, ".python-version");
			if (os_exists(f) && os_read_file(x->a, &quiet, f, &src))
				text = src.text;
			char *slash = strrchr(dir, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
	}
	const char *global = os_join(x->a, root, "version");
	if (!text && os_exists(global) && os_read_file(x->a, &quiet, global, &src))
		text = src.text;
	while (text && *text) {
		text += strspn(text, " \t\r\n:");
		size_t n = strcspn(text, " \t\r\n:");
		if (n)
			strv_push(x->a, &out, arena_strndup(x->a, text, n));
		text += n;
	}
	return out;
}

/* A pyenv shim on PATH stands for the interpreter an active pyenv version provides. */
static void cand_shim(struct disc *x, const char *shim, const char *name)
{
	const char *root = pyenv_root(x->a, x->req->env);
	struct strv active = root ? pyenv_active(x, root) : (struct strv){0};
	for (size_t i = 0; i < active.n; i++) {
		const char *p =
		    arena_printf(x->a, "%s/versions/%s/bin/%s", root, active.v[i], name);
		if (os_is_exec(p)) {
			looked_add(x, "python", shim, "pyenv shim for %s", p);
			cand_add(x, p, p, "PATH", NULL);
			return;
		}
	}
	looked_add(x, "python", shim,
	           "pyenv shim, but no active pyenv version has %s (pyenv's versions are searched "
	           "directly)",
	           name);
}

static void find_path_pythons(struct disc *x)
{
	const char *path = env_nonempty(x->req->env, "PATH");
	if (!path) {
		looked_add(x, "python", "PATH", "not set");
		return;
	}
	struct strv dirs = {0};
	size_t before = x->n_cands;
	while (*path) {
		size_t n = strcspn(path, ":");
		char *dir = arena_strndup(x->a, path, n);
		path += n + (path[n] == ':');
		if (!n || strv_contains(&dirs, dir))
			continue;
		strv_push(x->a, &dirs, dir);
		struct strv names = {0};
		if (!list_dir(x->a, dir, &names))
			continue;
		for (size_t i = 0; i < names.n; i++) {
			if (!is_python3x_name(names.v[i]))
				continue;
			const char *p = os_join(x->a, dir, names.v[i]);
			if (is_pyenv_shim(x->a, p))
				cand_shim(x, p, names.v[i]);
			else
				cand_add(x, p, p, "PATH", NULL);
		}
	}
	if (x->n_cands == before)
		looked_add(x, "python", "PATH", "no python3.X on PATH");
}

/* Adds dir/<each>/<bin> for every entry of dir, bin being the first of bins that exists. */
static void find_tree_pythons(struct disc *x, const char *dir, const char *const *bins,
                              const char *found_by)
{
	struct strv names = {0};
	if (!dir)
		return;
	if (!list_dir(x->a, dir, &names)) {
		looked_add(x, "python", dir, "not a directory");
		return;
	}
	if (!names.n)
		looked_add(x, "python", dir, "empty");
	for (size_t i = 0; i < names.n; i++) {
		if (names.v[i][0] == '.')
			continue;
		const char *d = os_join(x->a, dir, names.v[i]);
		if (!os_is_dir(d))
			continue;
		/* pyenv names its CPython directories by version: an old one need not be run. */
		int major, minor;
		if (strcmp(found_by, "pyenv") == 0 &&
		    sscanf(names.v[i], "%d.%d", &major, &minor) == 2 &&
		    (major < 3 || (major == 3 && minor < 8))) {
			looked_add(x, "python", d,
			           "Python %d.%d skipped: cuwheel needs CPython >= 3.8 (not run: "
			           "pyenv's directory name says so)",
			           major, minor);
			continue;
		}
		const char *p = NULL;
		for (size_t k = 0; bins[k] && !p; k++)
			if (os_is_exec(os_join(x->a, d, bins[k])))
				p = os_join(x->a, d, bins[k]);
		if (p)
			cand_add(x, p, p, found_by, NULL);
		else
			looked_add(x, "python", d, "no %s", bins[0]);
	}
}

static void find_candidates(struct disc *x)
{
	/* bin/python as a fallback so that an old version is named ("Python 2.7 skipped"). */
	static const char *const py3_bins[] = {"bin/python3", "bin/python", NULL};
	static const char *const py_bins[] = {"bin/python", "bin/python3", NULL};
	struct arena *a = x->a;
	const struct str_pairs *t = &x->req->pythons;
	for (size_t i = 0; i < t->n; i++)
		cand_add(x, arena_printf(a, "pythons.\"%s\"", t->v[i].key),
		         explicit_path(x, t->v[i].value), "explicit", t->v[i].key);
	find_path_pythons(x);
	const char *const *env = x->req->env;
	const char *home = env_nonempty(env, "HOME");
	const char *roots[2] = {env_nonempty(env, "PYENV_ROOT"),
	                        home ? os_join(a, home, ".pyenv") : NULL};
	for (size_t i = 0; i < 2; i++) {
		if (!roots[i] || (i == 1 && roots[0] && strcmp(roots[0], roots[1]) == 0))
			continue;
		find_tree_pythons(x, os_join(a, roots[i], "versions"), py3_bins, "pyenv");
	}
	find_tree_pythons(x, arena_printf(a, "%s/opt/python", x->sysroot), py_bins, "manylinux");
	const char *uv = env_nonempty(env, "UV_PYTHON_INSTALL_DIR");
	if (!uv && env_nonempty(env, "XDG_DATA_HOME"))
		uv = os_join(a, env_nonempty(env, "XDG_DATA_HOME"), "uv/python");
	if (!uv && home)
		uv = os_join(a, home, ".local/share/uv/python");
	find_tree_pythons(x, uv, py3_bins, "uv");
}

static const char *interp_key(struct arena *a, const struct interp *ip)
{
	return arena_printf(a, "%d.%d%s", ip->major, ip->minor,
	                    ip->freethreaded || strchr(ip->abiflags, 't') ? "t" : "");
}

/* interp_key(), plus the torch's "MAJOR.MINOR" when torch was found. */
static const char *interp_torch_key(struct arena *a, const struct interp *ip)
{
	const struct torch_info *t = &ip->torch;
	return arena_printf(a, "%s torch %s", interp_key(a, ip),
	                    t->present && t->version_short ? t->version_short : "-");
}

static int cmp_interp(const void *x, const void *y)
{
	const struct interp *a = x, *b = y;
	if (a->major != b->major)
		return b->major - a->major;
	if (a->minor != b->minor)
		return b->minor - a->minor;
	if (a->freethreaded != b->freethreaded)
		return (int)a->freethreaded - (int)b->freethreaded;
	/* One version, several torches: in the order they were found (explicit first). */
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Decides, in candidate order, which probed interpreter stands for each (version, abiflags). */
static void accept_pythons(struct disc *x, struct probe_job *jobs)
{
	struct discovery *ds = x->out;
	ds->pythons = arena_calloc(x->a, x->n_cands ? x->n_cands : 1, sizeof(*ds->pythons));
	for (size_t i = 0; i < x->n_cands; i++) {
		const struct pycand *c = &x->cands[i];
		struct interp *ip = &jobs[i].info;
		bool warn = strcmp(c->found_by, "explicit") == 0;
		const char *why = NULL;
		if (!jobs[i].ok) {
			why = arena_printf(x->a, "probe failed: %s", jobs[i].error);
		} else if (!ip->implementation || strcmp(ip->implementation, "cpython") != 0) {
			why = arena_printf(x->a, "%s %s skipped: cuwheel builds for CPython only",
			                   ip->implementation ? ip->implementation : "?",
			                   ip->version);
		} else if (ip->major < 3 || (ip->major == 3 && ip->minor < 8)) {
			why =
			    arena_printf(x->a, "Python %d.%d skipped: cuwheel needs CPython >= 3.8",
			                 ip->major, ip->minor);
		} else if (c->want && strcmp(c->want, interp_key(x->a, ip)) != 0 &&
		           strcmp(c->want, ip->version) != 0) {
			why = arena_printf(x->a, "version mismatch: expected %s, it is %s%s",
			                   c->want, ip->version, ip->freethreaded ? "t" : "");
		} else if (!ip->include_dir ||
		           !os_exists(os_join(x->a, ip->include_dir, "Python.h"))) {
			why = arena_printf(x->a,
			                   "Python %s skipped: no Python.h in %s (install its "
			                   "development headers)",
			                   ip->version, ip->include_dir ? ip->include_dir : "?");
		}
		if (why) {
			looked_add(x, "python", c->path, "%s", why);
			if (warn)
				diag_path(x->d, DIAG_WARNING, c->path,
				          "Python %s from the pythons table was not usable: %s",
				          c->want, why);
			continue;
		}
		/* Two interpreters of one version are kept when their torch differs (a venv per
		 * torch): torch cells pick theirs by torch version (discover_python_torch). */
		const char *key = interp_key(x->a, ip), *tkey = interp_torch_key(x->a, ip);
		const struct interp *dup = NULL;
		for (size_t k = 0; k < ds->n_pythons && !dup; k++)
			if (strcmp(interp_key(x->a, &ds->pythons[k]), key) == 0 &&
			    (!ip->torch.present || !ds->pythons[k].torch.present ||
			     strcmp(interp_torch_key(x->a, &ds->pythons[k]), tkey) == 0))
				dup = &ds->pythons[k];
		if (dup) {
			looked_add(x, "python", c->path, "duplicate of %s (Python %s%s%s, %s)",
			           dup->path, dup->version, dup->torch.present ? ", torch " : "",
			           dup->torch.present ? dup->torch.version : "", dup->found_by);
			continue;
		}
		ip->path = c->path;
		ip->found_by = c->found_by;
		ip->order = i;
		ds->pythons[ds->n_pythons++] = *ip;
		const struct torch_info *ti = &ip->torch;
		looked_add(x, "python", c->path, "found %s%s%s%s", ip->version,
		           ti->present ? ", torch " : "", ti->present ? ti->version : "",
		           jobs[i].cached ? " (cached probe)" : "");
	}
	if (ds->n_pythons)
		qsort(ds->pythons, ds->n_pythons, sizeof(*ds->pythons), cmp_interp);
}

static void find_pythons(struct disc *x, bool torch, int jobs_max)
{
	find_candidates(x);
	struct probe_job *jobs = arena_calloc(x->a, x->n_cands ? x->n_cands : 1, sizeof(*jobs));
	for (size_t i = 0; i < x->n_cands; i++)
		jobs[i] = (struct probe_job){.path = x->cands[i].path, .torch = torch};
	probe_run(x->a, x->d, x->cache_dir, jobs, x->n_cands, jobs_max);
	accept_pythons(x, jobs);
}

/* ---- entry points ---- */

bool discover_run(struct arena *a, struct diag *d, const struct discover_request *r,
                  const char *cache_dir, const struct discover_opts *o, struct discovery *out)
{
	static const struct discover_opts defaults = {0};
	if (!o)
		o = &defaults;
	memset(out, 0, sizeof(*out));
	if (cache_dir && !os_mkdir_p(d, cache_dir))
		return false;
	struct disc x = {.a = a, .d = d, .req = r, .cache_dir = cache_dir, .out = out};
	x.sysroot = o->sysroot ? o->sysroot : "";
	find_toolkits(&x);
	find_pythons(&x, o->probe_torch, o->jobs);
	return true;
}

const struct toolkit *discover_toolkit(const struct discovery *ds, const char *version)
{
	for (size_t i = 0; i < ds->n_toolkits; i++) {
		const struct toolkit *tk = &ds->toolkits[i];
		if (version_matches(version, tk->version, tk->major, tk->minor))
			return tk;
	}
	return NULL;
}

const struct interp *discover_python(const struct discovery *ds, const char *version)
{
	int major, minor, n = 0;
	if (sscanf(version, "%d.%d%n", &major, &minor, &n) != 2)
		return NULL;
	const char *rest = version + n;
	bool ft = strcmp(rest, "t") == 0;
	if (*rest && !ft)
		return NULL;
	for (size_t i = 0; i < ds->n_pythons; i++) {
		const struct interp *ip = &ds->pythons[i];
		bool ipft = ip->freethreaded || strchr(ip->abiflags, 't');
		if (ip->major == major && ip->minor == minor && ipft == ft)
			return ip;
	}
	return NULL;
}

const struct interp *discover_python_torch(const struct discovery *ds, const char *version,
                                           const char *torch)
{
	const struct interp *first = discover_python(ds, version);
	if (!first || !torch)
		return first;
	for (const struct interp *ip = first; ip < ds->pythons + ds->n_pythons; ip++) {
		if (ip->major != first->major || ip->minor != first->minor ||
		    ip->freethreaded != first->freethreaded)
			break;
		if (ip->torch.present && ip->torch.version_short &&
		    strcmp(ip->torch.version_short, torch) == 0)
			return ip;
	}
	return first;
}

const struct interp *discover_torch(const struct discovery *ds, const char *torch)
{
	for (size_t i = 0; torch && i < ds->n_pythons; i++) {
		const struct torch_info *t = &ds->pythons[i].torch;
		if (t->present && t->version_short && strcmp(t->version_short, torch) == 0)
			return &ds->pythons[i];
	}
	return NULL;
}

bool toolkit_has_sm(const struct toolkit *tk, int sm)
{
	for (size_t i = 0; i < tk->n_sm; i++)
		if (tk->sm[i] == sm)
			return true;
	return false;
}
