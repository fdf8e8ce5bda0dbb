/* module_init.c: is an extension a Python module or a library loaded by path? The
 * preprocessor answers, with the compile's flags: a module's PyInit_<name> is there after
 * expansion (PYBIND11_MODULE pastes it, PyMODINIT_FUNC declares it), a PyG-style library's is
 * not (its Windows stub sits behind #ifdef _WIN32). */
#include "init/module_init.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "standards/digest.h"

static const char *ext_of(const char *p)
{
	const char *slash = strrchr(p, '/'), *dot = strrchr(p, '.');
	return dot && (!slash || dot > slash) ? dot : "";
}

/* The -I of the dirs every compile of x sees besides its own: torch's, Python's, CUDA's. */
static void common_includes(struct arena *a, const struct init_inputs *in, struct strv *av)
{
	if (in->py) {
		for (size_t i = 0; i < in->py->torch.include_dirs.n; i++)
			strv_push(a, av, arena_printf(a, "-I%s", in->py->torch.include_dirs.v[i]));
		if (in->py->include_dir)
			strv_push(a, av, arena_printf(a, "-I%s", in->py->include_dir));
	}
	if (in->tk && in->tk->include_dir)
		strv_push(a, av, arena_printf(a, "-I%s", in->tk->include_dir));
}

/* x's defines and undefs, then the -D, -U, -I (and -std) among args. */
static void defines(struct arena *a, const struct cap_ext *x, const struct strv *args,
                    struct strv *av)
{
	for (size_t i = 0; i < x->defines.n; i++)
		strv_push(a, av, arena_printf(a, "-D%s", x->defines.v[i]));
	for (size_t i = 0; i < x->undefs.n; i++)
		strv_push(a, av, arena_printf(a, "-U%s", x->undefs.v[i]));
	for (size_t i = 0; args && i < args->n; i++)
		if (!strncmp(args->v[i], "-D", 2) || !strncmp(args->v[i], "-U", 2) ||
		    !strncmp(args->v[i], "-I", 2) || !strncmp(args->v[i], "-std", 4))
			strv_push(a, av, args->v[i]);
}

void init_scan_argv(struct arena *a, const struct init_inputs *in, const struct cap_ext *x,
                    const char *proj, const char *src, struct strv *av)
{
	bool c = !strcmp(ext_of(src), ".c");
	strv_push(a, av, c ? in->cc : in->cxx);
	if (!c)
		strv_push(a, av, "-std=c++17");
	for (size_t i = 0; i < x->include_dirs.n; i++)
		strv_push(a, av,
		          arena_printf(a, "-I%s", path_under(a, proj, x->include_dirs.v[i])));
	common_includes(a, in, av);
	defines(a, x, x->args_per_compiler || !c ? &x->cxx_args : NULL, av);
}

/* nvcc's preprocessor command for a .cu of x (its nvcc args' defines, as BuildExtension
 * passes extra_compile_args["nvcc"]). */
static void nvcc_argv(struct arena *a, const struct init_inputs *in, const struct cap_ext *x,
                      struct strv *av)
{
	strv_push(a, av, in->tk->nvcc);
	strv_push(a, av, "-std=c++17");
	for (size_t i = 0; i < x->include_dirs.n; i++)
		strv_push(a, av, arena_printf(a, "-I%s", x->include_dirs.v[i]));
	common_includes(a, in, av);
	defines(a, x, &x->nvcc_args, av);
}

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* Reads a line marker (# 12 "file" flags) at p; returns the file (escapes kept) or NULL. */
static const char *marker_file(struct arena *a, const char *p, const char *end)
{
	if (p >= end || *p != '#')
		return NULL;
	p++;
	if (p + 5 < end && !strncmp(p, "line", 4))
		p += 4;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '"')
		return NULL;
	const char *q = ++p;
	while (q < end && *q != '"')
		q += *q == '\\' && q + 1 < end ? 2 : 1;
	return arena_strndup(a, p, (size_t)(q - p));
}

/* Scans preprocessed text: *defined when a PyInit_ identifier stands in a line of a file
 * outside pydir (CPython's headers declare PyInit__imp); every file entered goes to files. */
static void scan_expanded(struct arena *a, const char *text, size_t n, const char *pydir,
                          bool *defined, struct strv *files)
{
	const char *p = text, *end = text + n;
	bool in_py = false;
	size_t pl = pydir ? strlen(pydir) : 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *f = marker_file(a, p, le);
		if (f) {
			in_py = pl && !strncmp(f, pydir, pl) && (f[pl] == '/' || !f[pl]);
			if (*f && *f != '<' && !strv_contains(files, f))
				strv_push(a, files, f);
		} else if (!in_py && !*defined) {
			for (const char *h = p; h + 7 < le; h++) {
				h = memchr(h, 'P', (size_t)(le - h));
				if (!h || h + 7 >= le)
					break;
				if (!strncmp(h, "PyInit_", 7) && (h == p || !ident_char(h[-1])) &&
				    ident_char(h[7])) {
					*defined = true;
					break;
				}
			}
		}
		p = le + 1;
	}
}

/* The cache file of one run: scan/pyinit-<digest of the command>. */
static const char *cache_path(struct arena *a, const char *build_dir, const struct strv *av)
{
	struct strbuf key = {0};
	sb_puts(&key, "pyinit 1\n");
	for (size_t i = 0; i < av->n; i++)
		sb_printf(&key, "%s\n", av->v[i]);
	char hex[65];
	mem_sha256_hex(key.buf, key.len, hex);
	sb_release(&key);
	return arena_printf(a, "%s/scan/pyinit-%.32s", build_dir, hex);
}

/* The cached answer when every file the run entered has its mtime still. */
static bool cache_read(struct arena *a, const char *cache, const char *cwd, bool *defined)
{
	struct source s;
	struct diag quiet = {0};
	if (!os_exists(cache) || !os_read_file(a, &quiet, cache, &s) || s.len < 2)
		return false;
	const char *p = s.text, *end = s.text + s.len;
	const char *nl = memchr(p, '\n', s.len);
	if (!nl)
		return false;
	*defined = !strncmp(p, "defined\n", 8);
	for (p = nl + 1; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		char *sp;
		long long mt = strtoll(p, &sp, 10);
		if (sp == p || *sp != ' ')
			return false;
		const char *f = arena_strndup(a, sp + 1, (size_t)(nl - sp - 1));
		if (os_mtime_ns(f[0] == '/' ? f : os_join(a, cwd, f)) != (int64_t)mt)
			return false;
	}
	return true;
}

static bool cache_write(struct arena *a, struct diag *d, const char *cache, const char *cwd,
                        bool defined, const struct strv *files)
{
	struct strbuf sb = {0};
	sb_puts(&sb, defined ? "defined\n" : "absent\n");
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i];
		if (strchr(f, '\\') || strchr(f, '\n'))
			continue; /* an escaped name: not one to stat */
		sb_printf(&sb, "%lld %s\n",
		          (long long)os_mtime_ns(f[0] == '/' ? f : os_join(a, cwd, f)), f);
	}
	bool ok = os_write_atomic(d, cache, sb.buf, sb.len, 0644);
	sb_release(&sb);
	return ok;
}

/* One preprocessor run of src (av: the command less -E and the source), cached. *ran is
 * false when the preprocessor failed (*why: its first line). */
static bool expand(struct arena *a, struct diag *d, const struct init_inputs *in, struct strv *av,
                   const char *src, bool *defined, bool *ran, const char **why)
{
	const char *cwd = in->project_dir;
	strv_push(a, av, "-E");
	strv_push(a, av, src);
	const char *cache = cache_path(a, in->build_dir, av);
	*ran = true;
	if (cache_read(a, cache, cwd, defined))
		return true;
	const char *tmp = arena_printf(a, "%s.tmp%ld", cache, (long)getpid());
	strv_push(a, av, "-o");
	strv_push(a, av, tmp);
	const char **argv = arena_calloc(a, av->n + 1, sizeof(*argv));
	for (size_t i = 0; i < av->n; i++)
		argv[i] = av->v[i];
	struct os_run r = {.argv = argv, .cwd = cwd, .capture = true};
	struct strbuf msg = {0};
	int status = 0;
	if (!os_mkdir_p(d, os_join(a, in->build_dir, "scan")) || !os_run(d, &r, &msg, &status)) {
		sb_release(&msg);
		return false;
	}
	struct source res;
	struct diag quiet = {0};
	if (status != 0 || !os_read_file(a, &quiet, tmp, &res)) {
		const char *m = msg.len ? sb_to_arena(&msg, a) : "no output";
		*ran = false;
		*why = arena_printf(a, "%s: the preprocessor failed (%.*s)", src,
		                    (int)strcspn(m, "\n"), m);
		os_unlink(tmp);
		return true;
	}
	sb_release(&msg);
	os_unlink(tmp);
	struct strv files = {0};
	*defined = false;
	scan_expanded(a, res.text, res.len, in->py ? in->py->include_dir : NULL, defined, &files);
	return cache_write(a, d, cache, cwd, *defined, &files);
}

/* Whether src's own text names what defines a module: only the order the sources are asked
 * in (the likely one first); the answer is the preprocessor's. */
static bool names_init(struct arena *a, const char *proj, const char *src)
{
	static const char *const words[] = {"PyInit_",         "PYBIND11_MODULE",
	                                    "PYBIND11_PLUGIN", "TORCH_EXTENSION_NAME",
	                                    "PyMODINIT_FUNC",  "PyModuleDef"};
	struct source s;
	struct diag quiet = {0};
	if (!os_read_file(a, &quiet, src[0] == '/' ? src : os_join(a, proj, src), &s))
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++) {
		size_t wl = strlen(words[i]);
		for (const char *p = s.text, *end = s.text + s.len; p + wl <= end; p++) {
			p = memchr(p, words[i][0], (size_t)(end - p));
			if (!p || p + wl > end)
				break;
			if (!memcmp(p, words[i], wl))
				return true;
		}
	}
	return false;
}

bool init_module_defined(struct arena *a, struct diag *d, const struct init_inputs *in,
                         const struct cap_ext *x, bool *defined, const char **why)
{
	const char *leaf = strrchr(x->name, '.') ? strrchr(x->name, '.') + 1 : x->name;
	bool torch = in->cap->build_ext_torch;
	/* Ask the likely sources first, the .cu (nvcc, slower) last. */
	struct strv order = {0};
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < x->sources.n; i++) {
			const char *src = x->sources.v[i];
			bool cu = !strcmp(ext_of(src), ".cu");
			bool likely = !cu && names_init(a, in->project_dir, src);
			if ((pass == 0 && likely) || (pass == 1 && !cu && !likely) ||
			    (pass == 2 && cu))
				strv_push(a, &order, src);
		}
	*defined = false;
	*why = NULL;
	for (size_t i = 0; i < order.n && !*defined; i++) {
		const char *src = order.v[i];
		struct strv av = {0};
		if (!strcmp(ext_of(src), ".cu")) {
			if (!in->tk || !in->tk->nvcc) {
				*defined = true; /* cannot tell: a module it stays */
				*why = arena_printf(a, "%s: no nvcc to preprocess it", src);
				break;
			}
			nvcc_argv(a, in, x, &av);
		} else {
			init_scan_argv(a, in, x, ".", src, &av);
		}
		strv_push(a, &av, arena_printf(a, "-DTORCH_EXTENSION_NAME=%s", leaf));
		if (torch)
			strv_push(a, &av, "-DTORCH_API_INCLUDE_EXTENSION_H");
		bool ran;
		if (!expand(a, d, in, &av, src, defined, &ran, why))
			return false;
		if (!ran)
			*defined = true; /* the preprocessor failed: a module it stays */
	}
	return true;
}
