/* init_config.c: setup.py's extensions said as [tool.cuwheel]: the preprocessor splits each
 * extension's sources into kernels (no Python header in their closure: compiled once per
 * toolkit) and the extension's own (per Python); every value written carries its origin. */
#include "init/init_config.h"

#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "init/module_init.h"
#include "torch/torch_scan.h"

#define COMMENT_COL   44
#define DEFAULT_ARCHS "7.5;8.0;8.6;8.9;9.0;10.0;12.0+PTX"

static const char *ext_of(const char *p)
{
	const char *slash = strrchr(p, '/'), *dot = strrchr(p, '.');
	return dot && (!slash || dot > slash) ? dot : "";
}

static bool is_cu(const char *p)
{
	return !strcmp(ext_of(p), ".cu");
}

static void push_new(struct arena *a, struct strv *v, const char *s)
{
	if (!strv_contains(v, s))
		strv_push(a, v, s);
}

static bool strv_eq(const struct strv *x, const struct strv *y)
{
	if (x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->v[i], y->v[i]))
			return false;
	return true;
}

/* --- TOML text ------------------------------------------------------------------------- */

/* How a string enters the config: a basic string, or comment text. */
enum toml_out {
	TOML_OUT_STRING,  /* "..." */
	TOML_OUT_COMMENT, /* after "# ": the same escapes, no quotes */
};

/* The one way a string enters the config init writes (every captured string is setup.py's
 * and may be hostile): every control character (C0, DEL, C1), the Unicode line and paragraph
 * separators and the bidirectional overrides are written as \uXXXX escapes, so no string and
 * no comment can end its line, start a table or read differently from what TOML parses. In a
 * string, '"' and '\' are escaped too; s is valid UTF-8 (the recorder's JSON). */
static void toml_escape(struct strbuf *sb, const char *s, enum toml_out as)
{
	bool str = as == TOML_OUT_STRING;
	if (str)
		sb_putc(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned cp = 0;
		size_t more = 0;
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			cp = p[1], more = 1; /* C1 controls, NEL among them */
		else if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae)
			cp = 0x2000u + p[2] - 0x80, more = 2; /* U+2028..U+202E */
		else if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
			cp = 0x2040u + p[2] - 0x80, more = 2; /* U+2066..U+2069 */
		if (more) {
			sb_printf(sb, "\\u%04x", cp);
			p += more;
		} else if (str && (*p == '"' || *p == '\\'))
			sb_printf(sb, "\\%c", *p);
		else if (*p == '\n')
			sb_puts(sb, "\\n");
		else if (*p == '\t')
			sb_puts(sb, "\\t");
		else if (*p == '\r')
			sb_puts(sb, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(sb, "\\u%04x", *p);
		else
			sb_putc(sb, (char)*p);
	}
	if (str)
		sb_putc(sb, '"');
}

static void toml_str(struct strbuf *sb, const char *s)
{
	toml_escape(sb, s, TOML_OUT_STRING);
}

/* A whole comment line: "# text". */
static void comment_line(struct strbuf *sb, const char *text)
{
	sb_puts(sb, "# ");
	toml_escape(sb, text, TOML_OUT_COMMENT);
	sb_putc(sb, '\n');
}

static void toml_arr(struct strbuf *sb, const struct strv *v)
{
	sb_putc(sb, '[');
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			sb_puts(sb, ", ");
		toml_str(sb, v->v[i]);
	}
	sb_putc(sb, ']');
}

/* Ends the current line with "# why" at the comment column (one space past a long line). */
static void comment(struct strbuf *sb, size_t line_start, const char *why)
{
	if (why && *why) {
		size_t w = sb->len - line_start;
		do
			sb_putc(sb, ' ');
		while (++w < COMMENT_COL);
		sb_puts(sb, "# ");
		toml_escape(sb, why, TOML_OUT_COMMENT);
	}
	sb_putc(sb, '\n');
}

static void kv_str(struct strbuf *sb, const char *key, const char *val, const char *why)
{
	size_t st = sb->len;
	sb_printf(sb, "%s = ", key);
	toml_str(sb, val);
	comment(sb, st, why);
}

static void kv_arr(struct strbuf *sb, const char *key, const struct strv *v, const char *why)
{
	size_t st = sb->len;
	sb_printf(sb, "%s = ", key);
	toml_arr(sb, v);
	comment(sb, st, why);
}

static void kv_raw(struct strbuf *sb, const char *key, const char *raw, const char *why)
{
	size_t st = sb->len;
	sb_printf(sb, "%s = %s", key, raw);
	comment(sb, st, why);
}

/* --- sources as globs where a glob says the same --------------------------------------- */

/* Replaces every group of files of one directory and extension that is all of that
 * directory's files of that extension (two or more) by a glob "dir/STAR.ext". */
static void compact(struct arena *a, const char *proj, const struct strv *files, struct strv *out)
{
	struct strv done = {0};
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i], *slash = strrchr(f, '/');
		const char *dir = slash ? arena_strndup(a, f, (size_t)(slash - f)) : "";
		const char *ext = ext_of(f);
		const char *glob = arena_printf(a, "%s%s*%s", dir, *dir ? "/" : "", ext);
		if (strv_contains(&done, glob))
			continue;
		size_t in_group = 0;
		for (size_t j = 0; j < files->n; j++) {
			const char *g = files->v[j], *gs = strrchr(g, '/');
			size_t dl = gs ? (size_t)(gs - g) : 0;
			if (dl == strlen(dir) && !strncmp(g, dir, dl) && !strcmp(ext_of(g), ext))
				in_group++;
		}
		struct strv names = {0};
		size_t on_disk = 0;
		if (*ext && in_group >= 2 &&
		    os_list_dir(a, *dir ? os_join(a, proj, dir) : proj, &names))
			for (size_t k = 0; k < names.n; k++)
				on_disk +=
				    names.v[k][0] != '.' && !strcmp(ext_of(names.v[k]), ext) &&
				    !os_is_dir(os_join(a, os_join(a, proj, dir), names.v[k]));
		if (*ext && in_group >= 2 && on_disk == in_group) {
			strv_push(a, &done, glob);
			strv_push(a, out, glob);
		} else {
			strv_push(a, out, f);
		}
	}
}

/* --- classifying ----------------------------------------------------------------------- */

struct split {
	struct strv kernels, binding; /* project-relative */
	struct strv why_binding;      /* per binding source: the Python header reached */
	bool own_nvcc;                /* its .cu among binding take its own nvcc flags */
	bool library;                 /* no source defines its PyInit_: loaded by path */
};

static bool classify(struct arena *a, struct diag *d, const struct init_inputs *in,
                     const struct cap_ext *x, struct split *out)
{
	struct scan_ctx s = {.a = a, .d = d, .build_dir = in->build_dir};
	s.proj = path_relative(a, in->build_dir, in->project_dir);
	bool ok = true;
	for (size_t i = 0; i < x->sources.n; i++) {
		const char *src = x->sources.v[i];
		if (is_cu(src)) {
			strv_push(a, &out->kernels, src);
			continue;
		}
		struct strv av = {0};
		init_scan_argv(a, in, x, s.proj, src, &av);
		struct binding_decision bd;
		if (!os_mkdir_p(d, in->build_dir) ||
		    !torchscan_binding(&s, &av, path_under(a, s.proj, src), NULL, &bd)) {
			ok = false;
			continue;
		}
		if (bd.python) {
			strv_push(a, &out->binding, src);
			strv_push(a, &out->why_binding, bd.python_via);
		} else {
			strv_push(a, &out->kernels, src);
		}
	}
	return ok;
}

/* --- flags ----------------------------------------------------------------------------- */

struct flags {
	struct strv nvcc, cxx, link;
	bool openmp;           /* -fopenmp -DAT_PARALLEL_OPENMP were in the cxx args */
	struct strv nvcc_left; /* what was left out, for the comments */
	struct strv archs;     /* from -gencode/-arch/-code: "8.0", "9.0+PTX" */
	struct strv cxx_left, link_left;
};

/* "8.0" for sm_80 / compute_80 ("9.0a" for sm_90a), or NULL when v is no such name. */
static const char *arch_of(struct arena *a, const char *v, bool *ptx)
{
	*ptx = !strncmp(v, "compute_", 8);
	const char *d = !strncmp(v, "sm_", 3) ? v + 3 : *ptx ? v + 8 : NULL;
	size_t n = d ? strspn(d, "0123456789") : 0;
	if (n < 2 || n > 3 || (d[n] && !((d[n] == 'a' || d[n] == 'f') && !d[n + 1])))
		return NULL;
	return arena_printf(a, "%.*s.%c%s", (int)(n - 1), d, d[n - 1], d[n] ? d + n : "");
}

/* Adds the archs of one -gencode value ("arch=compute_80,code=[sm_80,compute_80]") or one
 * -arch / -code value to out ("8.0", "8.0+PTX" for PTX). False when it is not understood. */
static bool gencode_archs(struct arena *a, const char *val, bool code_only, struct strv *out)
{
	const char *code = code_only ? val : strstr(val, "code=");
	if (!code_only && !strncmp(val, "arch=", 5) && !code) { /* arch= alone: its SASS too */
		code = val + 5;
		code_only = true;
	}
	if (!code)
		return false;
	if (!code_only)
		code += 5;
	bool any = false;
	char *list = arena_strdup(a, code);
	for (char *t = strtok(list, "[],\"' "); t; t = strtok(NULL, "[],\"' ")) {
		bool ptx;
		const char *v = arch_of(a, t, &ptx);
		if (!v)
			return false;
		/* One entry an arch: "9.0+PTX" says its SASS and its PTX. */
		const char *with = arena_printf(a, "%s+PTX", v);
		if (ptx) {
			for (size_t k = 0; k < out->n; k++)
				if (!strcmp(out->v[k], v))
					out->v[k] = with;
			push_new(a, out, with);
		} else if (!strv_contains(out, with))
			push_new(a, out, v);
		any = true;
	}
	return any;
}

static void split_flags(struct arena *a, const struct cap_ext *x, struct flags *f)
{
	bool omp = strv_contains(&x->cxx_args, "-fopenmp") &&
	           strv_contains(&x->cxx_args, "-DAT_PARALLEL_OPENMP");
	f->openmp = omp;
	for (size_t i = 0; i < x->cxx_args.n; i++) {
		const char *v = x->cxx_args.v[i];
		if ((omp && (!strcmp(v, "-fopenmp") || !strcmp(v, "-DAT_PARALLEL_OPENMP"))) ||
		    !strcmp(v, "-std=c++17"))
			strv_push(a, &f->cxx_left, v);
		else
			strv_push(a, &f->cxx, v);
	}
	for (size_t i = 0; i < x->nvcc_args.n; i++) {
		const char *v = x->nvcc_args.v[i];
		const char *next = i + 1 < x->nvcc_args.n ? x->nvcc_args.v[i + 1] : NULL;
		/* -gencode, -arch, -code and their long names become the archs list (one list
		 * rules plan, build and CI), with the value in the next argument or after '='. */
		static const struct {
			const char *flag;
			bool code;
		} arch_flags[] = {{"-gencode", false}, {"--generate-code", false},
		                  {"-arch", true},     {"--gpu-architecture", true},
		                  {"-code", true},     {"--gpu-code", true}};
		bool taken = false;
		for (size_t k = 0; !taken && k < sizeof(arch_flags) / sizeof(*arch_flags); k++) {
			size_t n = strlen(arch_flags[k].flag);
			const char *val = !strcmp(v, arch_flags[k].flag) ? next
			                  : !strncmp(v, arch_flags[k].flag, n) && v[n] == '='
			                      ? v + n + 1
			                      : NULL;
			if (val && gencode_archs(a, val, arch_flags[k].code, &f->archs)) {
				strv_push(a, &f->nvcc_left, v);
				if (val == next)
					strv_push(a, &f->nvcc_left, x->nvcc_args.v[++i]);
				taken = true;
			}
		}
		if (taken)
			continue;
		/* cuwheel passes -std=c++17, and --threads of its own (from the cores and the .cu
		 * files): a second one makes nvcc warn on every kernel. */
		bool threads = (!strcmp(v, "--threads") || !strcmp(v, "-t")) && next;
		if (!strcmp(v, "-std=c++17") || !strncmp(v, "--threads=", 10) || threads) {
			strv_push(a, &f->nvcc_left, v);
			if (threads)
				strv_push(a, &f->nvcc_left, x->nvcc_args.v[++i]);
		} else {
			strv_push(a, &f->nvcc, v);
		}
	}
	for (size_t i = 0; i < x->undefs.n; i++) {
		strv_push(a, &f->nvcc, arena_printf(a, "-U%s", x->undefs.v[i]));
		strv_push(a, &f->cxx, arena_printf(a, "-U%s", x->undefs.v[i]));
	}
	for (size_t i = 0; i < x->link_args.n; i++) {
		const char *v = x->link_args.v[i];
		if (!strcmp(v, "-s"))
			strv_push(a, &f->link_left, v);
		else
			strv_push(a, &f->link, v);
	}
}

/* Where a value came from: "setup.py:LINE what", "setup.py:LINE" for what "", or for line -1
 * setuptools' own configuration (setup.cfg, pyproject.toml, its auto-discovery). */
static const char *at(struct arena *a, const struct capture *c, int line, const char *what)
{
	if (line < 0)
		return arena_printf(a, "setuptools' configuration%s%s", *what ? ": " : "", what);
	return arena_printf(a, "%s:%d%s%s", c->setup_py ? c->setup_py : "setup.py", line,
	                    *what ? " " : "", what);
}

static const char *joined(struct arena *a, const struct strv *v)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < v->n; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", v->v[i]);
	return sb_to_arena(&sb, a);
}

/* --- packages -------------------------------------------------------------------------- */

/* The directory of top-level package name, as package_dir maps it. */
static const char *package_path(struct arena *a, const struct capture *c, const char *name)
{
	const char *root = NULL;
	for (size_t i = 0; i < c->package_dir.n; i++) {
		if (!strcmp(c->package_dir.v[i].key, name))
			return c->package_dir.v[i].value;
		if (!c->package_dir.v[i].key[0])
			root = c->package_dir.v[i].value;
	}
	return root && *root && strcmp(root, ".") ? arena_printf(a, "%s/%s", root, name) : name;
}

static bool is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* What cuwheel's packages = "find" finds: top-level dirs with __init__.py. */
static void find_packages(struct arena *a, const char *proj, struct strv *out)
{
	struct strv names = {0};
	if (!os_list_dir(a, proj, &names))
		return;
	for (size_t i = 0; i < names.n; i++)
		if (is_ident(names.v[i]) &&
		    os_exists(os_join(a, os_join(a, proj, names.v[i]), "__init__.py")))
			strv_push(a, out, names.v[i]);
}

/* Appends to out the wheel paths (top/...) of what the stage step ships for package directory
 * dir (project-relative): every file but __pycache__ and *.pyc. False when it holds a dot-file
 * and hidden (an sdist: they ship) is not set, or cannot be listed. */
static bool package_walk(struct arena *a, const char *proj, const char *dir, const char *top,
                         bool hidden, struct strv *out)
{
	struct strv names = {0};
	if (!os_list_dir(a, os_join(a, proj, dir), &names))
		return false;
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		size_t len = strlen(n);
		if (!strcmp(n, "__pycache__") || (len > 4 && !strcmp(n + len - 4, ".pyc")))
			continue;
		if (n[0] == '.' && !hidden)
			return false;
		const char *sub = os_join(a, dir, n), *wsub = arena_printf(a, "%s/%s", top, n);
		if (os_is_dir(os_join(a, proj, sub))) {
			if (!package_walk(a, proj, sub, wsub, hidden, out))
				return false;
		} else
			strv_push(a, out, wsub);
	}
	return true;
}

/* The package directories that ship exactly setuptools' files (each top-level name's files
 * all under one directory, and nothing else there), or false when no such list exists. */
static bool files_as_packages(struct arena *a, const char *proj, const struct str_pairs *files,
                              bool hidden, struct strv *dirs)
{
	struct strv tops = {0};
	for (size_t i = 0; i < files->n; i++) {
		const char *k = files->v[i].key, *slash = strchr(k, '/');
		if (!slash || files->v[i].value[0] == '/')
			return false; /* a top-level module, or a source outside the project */
		push_new(a, &tops, arena_strndup(a, k, (size_t)(slash - k)));
	}
	for (size_t t = 0; t < tops.n; t++) {
		size_t tn = strlen(tops.v[t]);
		const char *dir = NULL;
		struct strv want = {0};
		for (size_t i = 0; i < files->n; i++) {
			const char *k = files->v[i].key, *src = files->v[i].value;
			if (strncmp(k, tops.v[t], tn) || k[tn] != '/')
				continue;
			size_t rest = strlen(k + tn), sn = strlen(src);
			if (sn < rest || strcmp(src + sn - rest, k + tn))
				return false; /* renamed on the way: not a directory's layout */
			const char *d = arena_strndup(a, src, sn - rest);
			if (dir && strcmp(dir, d))
				return false;
			dir = d;
			strv_push(a, &want, k);
		}
		struct strv have = {0};
		if (!*dir || !package_walk(a, proj, dir, tops.v[t], hidden, &have) ||
		    have.n != want.n)
			return false;
		for (size_t i = 0; i < have.n; i++)
			if (!strv_contains(&want, have.v[i]))
				return false;
		strv_push(a, dirs, dir);
	}
	return true;
}

/* What setuptools' build_py lays out, said as packages where whole directories say it exactly,
 * else as the python-files table (returned, for after [tool.cuwheel]'s keys). */
static const char *write_setuptools_files(struct arena *a, struct strbuf *sb,
                                          const struct init_inputs *in)
{
	const struct capture *c = in->cap;
	struct strv dirs = {0}, found = {0};
	const char *why =
	    at(a, c, c->line_packages,
	       arena_printf(a, "packages: %s", c->packages.n ? joined(a, &c->packages) : "none"));
	if (c->py_modules.n)
		why =
		    arena_printf(a, "%s; %s", why,
		                 at(a, c, c->line_py_modules,
		                    arena_printf(a, "py_modules: %s", joined(a, &c->py_modules))));
	why = arena_printf(a, "%s; setuptools' build_py ships %zu files", why, c->st_files.n);
	if (!c->st_files.n) {
		comment_line(
		    sb, arena_printf(a, "%s: the wheels hold the extension modules only", why));
		return NULL;
	}
	/* With PKG-INFO (an sdist), packages ship dot-files too: its MANIFEST chose them. */
	if (files_as_packages(a, in->project_dir, &c->st_files, in->has_pkginfo, &dirs)) {
		find_packages(a, in->project_dir, &found);
		bool same = found.n == dirs.n;
		for (size_t i = 0; same && i < dirs.n; i++)
			same = strv_contains(&found, dirs.v[i]);
		if (same)
			kv_str(sb, "packages", "find", why);
		else
			kv_arr(sb, "packages", &dirs, why);
		return NULL;
	}
	struct strbuf t = {0};
	sb_putc(&t, '\n');
	comment_line(&t, arena_printf(a,
	                              "%s: not whole directories, so each file is named (wheel "
	                              "path = project file)",
	                              why));
	sb_puts(&t, "[tool.cuwheel.python-files]\n");
	for (size_t i = 0; i < c->st_files.n; i++) {
		toml_str(&t, c->st_files.v[i].key);
		sb_puts(&t, " = ");
		toml_str(&t, c->st_files.v[i].value);
		sb_putc(&t, '\n');
	}
	return sb_to_arena(&t, a);
}

/* The packages key (or a comment), and the python-files table to append after [tool.cuwheel]'s
 * keys (NULL when there is none). */
static const char *write_packages(struct arena *a, struct strbuf *sb, const struct init_inputs *in)
{
	const struct capture *c = in->cap;
	if (c->st_answered) {
		const char *table = write_setuptools_files(a, sb, in);
		if (c->scripts.n)
			comment_line(sb, arena_printf(a,
			                              "%s: scripts %s are not shipped (say them as "
			                              "[project.scripts])",
			                              at(a, c, c->line_scripts, "scripts"),
			                              joined(a, &c->scripts)));
		if (c->data_files.n)
			comment_line(
			    sb, arena_printf(a,
			                     "data_files %s are not shipped (cuwheel writes no "
			                     ".data directory: move them into a package)",
			                     joined(a, &c->data_files)));
		return table;
	}
	if (c->st_error)
		comment_line(sb, arena_printf(a,
		                              "setuptools could not say its files (%s): from the "
		                              "keywords",
		                              c->st_error));
	struct strv top = {0}, dirs = {0}, found = {0};
	for (size_t i = 0; i < c->packages.n; i++) {
		const char *dot = strchr(c->packages.v[i], '.');
		push_new(a, &top,
		         dot ? arena_strndup(a, c->packages.v[i], (size_t)(dot - c->packages.v[i]))
		             : c->packages.v[i]);
	}
	for (size_t i = 0; i < top.n; i++)
		strv_push(a, &dirs, package_path(a, c, top.v[i]));
	find_packages(a, in->project_dir, &found);
	bool same = found.n == dirs.n && c->package_dir.n == 0;
	for (size_t i = 0; same && i < dirs.n; i++)
		same = strv_contains(&found, dirs.v[i]);
	const char *why = at(a, c, c->line_packages,
	                     arena_printf(a, "packages: %s%s", joined(a, &c->packages),
	                                  c->package_data ? ", with their package data" : ""));
	if (!top.n)
		sb_puts(
		    sb,
		    "# setup.py lists no packages: the wheels hold the extension modules only\n");
	else if (same)
		kv_str(sb, "packages", "find", why);
	else
		kv_arr(sb, "packages", &dirs, why);
	if (c->py_modules.n)
		comment_line(sb, arena_printf(a,
		                              "%s: py_modules %s are not shipped (cuwheel ships "
		                              "packages: move them into one, or add them by hand)",
		                              at(a, c, c->line_py_modules, "py_modules"),
		                              joined(a, &c->py_modules)));
	if (c->scripts.n)
		comment_line(sb, arena_printf(a,
		                              "%s: scripts %s are not shipped (say them as "
		                              "[project.scripts])",
		                              at(a, c, c->line_scripts, "scripts"),
		                              joined(a, &c->scripts)));
	return NULL;
}

/* --- [project] ------------------------------------------------------------------------- */

static const char *meta(const struct capture *c, const char *key, int *line)
{
	for (size_t i = 0; i < c->meta.n; i++)
		if (!strcmp(c->meta.v[i].key, key)) {
			for (size_t k = 0; k < c->meta_lines.n; k++)
				if (!strcmp(c->meta_lines.v[k].key, key))
					*line = (int)strtol(c->meta_lines.v[k].value, NULL, 10);
			return c->meta.v[i].value;
		}
	return NULL;
}

static int meta_line(const struct capture *c, const char *key)
{
	for (size_t k = 0; k < c->meta_lines.n; k++)
		if (!strcmp(c->meta_lines.v[k].key, key))
			return (int)strtol(c->meta_lines.v[k].value, NULL, 10);
	return c->setup_line;
}

static void write_entry_points(struct arena *a, struct strbuf *sb, const struct capture *c)
{
	for (size_t g = 0; g < c->n_entry_groups; g++) {
		const struct entry_group *eg = &c->entry_groups[g];
		if (!eg->entries.n)
			continue;
		if (!strcmp(eg->group, "console_scripts"))
			sb_puts(sb, "\n[project.scripts]");
		else if (!strcmp(eg->group, "gui_scripts"))
			sb_puts(sb, "\n[project.gui-scripts]");
		else {
			sb_puts(sb, "\n[project.entry-points.");
			toml_str(sb, eg->group);
			sb_putc(sb, ']');
		}
		sb_puts(sb, "  ");
		comment_line(sb, at(a, c, c->line_entry_points,
		                    arena_printf(a, "entry_points[\"%s\"]", eg->group)));
		for (size_t i = 0; i < eg->entries.n; i++) {
			toml_str(sb, eg->entries.v[i].key);
			sb_puts(sb, " = ");
			toml_str(sb, eg->entries.v[i].value);
			sb_putc(sb, '\n');
		}
	}
}

static void write_project(struct arena *a, struct strbuf *sb, const struct init_inputs *in)
{
	const struct capture *c = in->cap;
	if (in->metadata_elsewhere) {
		if (in->has_pkginfo && c->n_entry_groups) {
			sb_puts(
			    sb,
			    "\n# The metadata is PKG-INFO's; the entry points are not in it.\n");
			sb_puts(sb, "[project]\n");
			write_entry_points(a, sb, c);
		}
		return;
	}
	sb_puts(sb,
	        "\n# No PKG-INFO and no [project] in pyproject.toml: the metadata is setup()'s.\n");
	sb_puts(sb, "[project]\n");
	static const struct {
		const char *from, *to;
	} one[] = {{"name", "name"},
	           {"version", "version"},
	           {"description", "description"},
	           {"python_requires", "requires-python"}};
	for (size_t i = 0; i < sizeof(one) / sizeof(*one); i++) {
		int line = c->setup_line;
		const char *v = meta(c, one[i].from, &line);
		if (v && *v)
			kv_str(sb, one[i].to, v, at(a, c, line, one[i].from));
	}
	if (c->install_requires.n)
		kv_arr(sb, "dependencies", &c->install_requires,
		       at(a, c, meta_line(c, "install_requires"), "install_requires"));
	int line = c->setup_line;
	const char *url = meta(c, "url", &line);
	const char *author = meta(c, "author", &line);
	const char *email = meta(c, "author_email", &line);
	if (author || email) {
		struct strbuf t = {0};
		sb_puts(&t, "[{");
		if (author) {
			sb_puts(&t, "name = ");
			toml_str(&t, author);
		}
		if (email) {
			sb_puts(&t, author ? ", email = " : "email = ");
			toml_str(&t, email);
		}
		sb_puts(&t, "}]");
		kv_raw(sb, "authors", sb_to_arena(&t, a),
		       at(a, c, meta_line(c, author ? "author" : "author_email"), "author"));
	}
	if (c->n_extras) {
		sb_puts(sb, "[project.optional-dependencies]        ");
		comment_line(sb, at(a, c, meta_line(c, "extras_require"), "extras_require"));
		for (size_t i = 0; i < c->n_extras; i++) {
			toml_str(sb, c->extras[i].name);
			sb_puts(sb, " = ");
			toml_arr(sb, &c->extras[i].deps);
			sb_putc(sb, '\n');
		}
	}
	if (url && *url) {
		sb_puts(sb, "[project.urls]                         ");
		comment_line(sb, at(a, c, meta_line(c, "url"), "url"));
		kv_str(sb, "Homepage", url, NULL);
	}
	write_entry_points(a, sb, c);
}

/* --- the whole file -------------------------------------------------------------------- */

static const char *kind_of(const struct capture *c, const struct cap_ext *x, const struct split *sp)
{
	if (c->build_ext_torch)
		return "torch";
	if (x->py_limited_api)
		return "abi3";
	for (size_t i = 0; i < sp->why_binding.n; i++)
		if (strstr(sp->why_binding.v[i], "pybind11"))
			return "pybind11";
	return "capi";
}

static const char *setenv_value(const struct init_inputs *in, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; in->setenv && in->setenv[i]; i++)
		if (!strncmp(in->setenv[i], name, n) && in->setenv[i][n] == '=')
			return in->setenv[i] + n + 1;
	return NULL;
}

/* Appends the [[tool.cuwheel.extension]] table of extension e: its binding sources, kind and
 * flags, each with where it came from. */
static void write_extension(struct arena *a, struct strbuf *sb, const struct init_inputs *in,
                            size_t e, const struct split *sp, const struct flags *fl)
{
	const struct capture *c = in->cap;
	const struct cap_ext *x = &c->exts[e];
	sb_printf(sb, "\n[[tool.cuwheel.extension]]\n");
	struct strbuf t = {0};
	sb_printf(&t, "%s: the sources that include Python's headers (",
	          at(a, c, x->line, x->name));
	for (size_t i = 0; i < sp[e].why_binding.n; i++) {
		const char *via = sp[e].why_binding.v[i];
		const char *base = strrchr(via, '/');
		sb_printf(&t, "%s%s: %s", i ? "; " : "", sp[e].binding.v[i], base ? base + 1 : via);
	}
	sb_puts(&t, "),");
	comment_line(sb, sb_to_arena(&t, a));
	comment_line(sb, "compiled per Python.");
	if (sp[e].binding.n > sp[e].why_binding.n) {
		comment_line(sb,
		             arena_printf(a,
		                          "Then its %zu kernel source(s), whose defines, C++ or "
		                          "nvcc flags differ from the kernels table's:",
		                          sp[e].binding.n - sp[e].why_binding.n));
		comment_line(sb,
		             c->build_ext_torch
		                 ? "compiled with its own flags, once per (toolkit, torch, flags) "
		                   "where they hold no Python header."
		                 : "compiled with its own flags, once per (toolkit, flags) where "
		                   "they hold no Python header.");
	}
	kv_str(sb, "module", x->name, at(a, c, x->line_name, "name"));
	kv_str(sb, "kind", kind_of(c, x, &sp[e]),
	       c->build_ext_torch  ? at(a, c, c->line_cmdclass ? c->line_cmdclass : x->line,
	                                "build_ext is torch's BuildExtension")
	       : x->py_limited_api ? at(a, c, x->line, "py_limited_api=True")
	                           : "the preprocessor: what its sources include");
	struct strv globs = {0};
	compact(a, in->project_dir, &sp[e].binding, &globs);
	kv_arr(sb, "sources", &globs, at(a, c, x->line_sources, "sources"));
	if (x->include_dirs.n)
		kv_arr(sb, "include-dirs", &x->include_dirs,
		       at(a, c, x->line_include_dirs, "include_dirs"));
	if (x->defines.n)
		kv_arr(sb, "defines", &x->defines, at(a, c, x->line_defines, "define_macros"));
	if (fl[e].cxx.n)
		kv_arr(sb, "cflags", &fl[e].cxx,
		       at(a, c, x->line_args,
		          x->args_per_compiler ? "extra_compile_args[\"cxx\"]"
		                               : "extra_compile_args"));
	if (sp[e].own_nvcc)
		kv_arr(
		    sb, "nvcc-flags", &fl[e].nvcc,
		    at(a, c, x->line_args,
		       "extra_compile_args[\"nvcc\"], for its own .cu (not the kernels table's)"));
	if (fl[e].link.n)
		kv_arr(sb, "ldflags", &fl[e].link, at(a, c, x->line_link_args, "extra_link_args"));
	else if (fl[e].link_left.n)
		comment_line(sb, arena_printf(a, "%s: -s (cuwheel always links with -s)",
		                              at(a, c, x->line_link_args, "extra_link_args")));
	if (x->libraries.n)
		kv_arr(sb, "libraries", &x->libraries, at(a, c, x->line_libraries, "libraries"));
	if (x->library_dirs.n)
		comment_line(sb, arena_printf(a,
		                              "%s: %s (add them to ldflags as -L, relative to the "
		                              "build dir)",
		                              at(a, c, x->line_library_dirs, "library_dirs"),
		                              joined(a, &x->library_dirs)));
	if (sp[e].library)
		kv_str(sb, "loaded-by", "path",
		       arena_printf(a,
		                    "no source defines PyInit_%s (the preprocessor, with the "
		                    "compile's defines): its package loads it by path",
		                    strrchr(x->name, '.') ? strrchr(x->name, '.') + 1 : x->name));
	if (c->no_abi_suffix)
		kv_raw(sb, "abi-suffix", "false",
		       at(a, c, c->line_cmdclass ? c->line_cmdclass : c->setup_line,
		          "BuildExtension.with_options(no_python_abi_suffix=True)"));
	if (x->dropped.n) {
		struct strv libs = {0};
		size_t dirs = 0;
		for (size_t i = 0; i < x->dropped.n; i++)
			if (!strncmp(x->dropped.v[i], "library ", 8) &&
			    strncmp(x->dropped.v[i], "library dir ", 12))
				strv_push(a, &libs, x->dropped.v[i] + 8);
			else
				dirs++;
		comment_line(sb, arena_printf(a,
		                              "left out, cuwheel adds its own: %s%s%s%zu "
		                              "include/library dir%s of torch, Python or CUDA",
		                              libs.n ? "libraries " : "",
		                              libs.n ? joined(a, &libs) : "", libs.n ? " and " : "",
		                              dirs, dirs == 1 ? "" : "s"));
	}
}

/* Whether m is dotted identifiers (the config refuses other module names). */
static bool dotted_name(const char *m)
{
	bool ok = m && *m && !(*m >= '0' && *m <= '9') && *m != '.';
	for (const char *p = m; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '_' || (*p == '.' && p[1] && p[1] != '.');
	return ok;
}

/* Appends [tool.cuwheel.test]: setup.py says no test, so the wheel is tested at least by
 * importing every module it builds; a module that cannot import fails its cell. A torch build
 * imports torch first. A library loaded by path (loaded-by = "path": the PyG family's ops,
 * which their package loads with torch.ops.load_library) is not a module to import: its
 * package is imported instead, as a user's import does, and that loads it. Names that are
 * not dotted identifiers are left out (the config refuses them). */
static void write_import_test(struct arena *a, struct strbuf *sb, const struct capture *c,
                              const struct split *sp)
{
	struct strv names = {0};
	bool libs = false;
	if (c->build_ext_torch)
		strv_push(a, &names, "torch");
	for (size_t e = 0; e < c->n_exts; e++) {
		const char *m = c->exts[e].name;
		if (!dotted_name(m))
			continue;
		if (sp[e].library) {
			libs = true;
			const char *dot = strrchr(m, '.');
			if (!dot)
				continue; /* a top-level library: no package loads it */
			m = arena_strndup(a, m, (size_t)(dot - m));
		}
		if (!strv_contains(&names, m))
			strv_push(a, &names, m);
	}
	if (names.n == (c->build_ext_torch ? 1u : 0u))
		return;
	struct strbuf cmd = {0};
	sb_puts(&cmd, "python -c 'import ");
	for (size_t i = 0; i < names.n; i++)
		sb_printf(&cmd, "%s%s", i ? ", " : "", names.v[i]);
	sb_putc(&cmd, '\'');
	sb_puts(sb, "\n[tool.cuwheel.test]\n");
	kv_str(sb, "command", sb_to_arena(&cmd, a),
	       libs ? "setup.py names no test: every module built must import; a library "
	              "loaded by path, its package (which loads it)"
	            : "setup.py names no test: every module built must import");
}

/* Why a capture with no CUDA source looks like a switch not set: the project's .cu files and
 * the CUDA switches setup.py names; NULL when neither. */
static const char *cpu_only_reason(struct arena *a, const struct init_inputs *in)
{
	const struct capture *c = in->cap;
	if (!c->cu_files.n && !c->cuda_switches.n)
		return NULL;
	struct strbuf sb = {0};
	sb_puts(&sb, "setup.py declared no CUDA source");
	if (c->cu_files.n)
		sb_printf(&sb, ", though the project holds .cu files (%s%s)",
		          joined(a, &c->cu_files), c->cu_files.n >= 8 ? " ..." : "");
	if (c->cuda_switches.n)
		sb_printf(&sb, "%s names %s", c->cu_files.n ? " and setup.py" : "; setup.py",
		          joined(a, &c->cuda_switches));
	sb_puts(&sb, ": it decided on a CPU-only build with the switches it was given (");
	for (size_t i = 0; in->setenv && in->setenv[i]; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", in->setenv[i]);
	sb_puts(&sb, in->setenv && in->setenv[0] ? ")" : "none)");
	return sb_to_arena(&sb, a);
}

/* Appends the [tool.cuwheel.matrix] table: the Pythons found, the toolkit (torch's, or the
 * one found) and the torch setup.py ran with. */
static void write_matrix(struct arena *a, struct strbuf *sb, const struct init_inputs *in,
                         const struct split *sp, bool cuda_code)
{
	bool torch_axis = false;
	const struct capture *c = in->cap;
	if (in->axes_from)
		sb_printf(
		    sb,
		    "\n[tool.cuwheel.matrix]\n# Edit the matrix: the torch setup.py ran with, "
		    "and the Pythons and CUDA of %s.\n",
		    in->axes_from);
	else
		sb_puts(sb, "\n[tool.cuwheel.matrix]\n# Edit the matrix: the values below are what "
		            "setup.py ran with and the Pythons found here with that torch.\n");
	if (in->pythons.n)
		kv_arr(sb, "python", &in->pythons,
		       in->axes_from ? arena_printf(a, "the Pythons of %s", in->axes_from)
		       : c->torch
		           ? arena_printf(a, "the Pythons found here with torch %s", c->torch)
		           : "the Pythons found here");
	if (c->torch_cuda || in->tk) {
		struct strv cu = {0};
		strv_push(a, &cu,
		          c->torch_cuda ? c->torch_cuda
		                        : arena_printf(a, "%d.%d", in->tk->major, in->tk->minor));
		kv_arr(sb, "cuda", &cu,
		       in->axes_from   ? arena_printf(a, "the CUDA of %s", in->axes_from)
		       : c->torch_cuda ? arena_printf(a, "torch %s is built for CUDA %s", c->torch,
		                                      c->torch_cuda)
		                       : "the toolkit found here");
	}
	if (c->torch && !strcmp(kind_of(c, &c->exts[0], &sp[0]), "torch")) {
		const char *dot = strchr(c->torch, '.');
		const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
		size_t n = dot2 ? (size_t)(dot2 - c->torch) : strcspn(c->torch, "+");
		struct strv t = {0};
		strv_push(a, &t, arena_strndup(a, c->torch, n));
		kv_arr(sb, "torch", &t, "the torch setup.py ran with");
		torch_axis = true;
	}
	if (!cuda_code) /* a wheel without CUDA code says no CUDA in its label */
		kv_str(sb, "local-version", torch_axis ? "pt{torch_nodot}" : "",
		       "no CUDA source: the label names no CUDA version");
}

/* The kernels table: the kernel sources of every extension that compiles them with its flags. */
struct ktable {
	struct strv src, inc, def;
	const struct flags *nvcc, *cxx; /* whose nvcc and C++ flags the table takes */
	size_t e_nvcc, e_cxx;
	bool def_set, openmp;
};

/* A project where some extension compiles its kernels with other flags (a _cpu/_cuda pair
 * sharing a source with other defines): the kernel archive is linked into every extension, so
 * the table's kernels would reach the extensions that do not list them, and twice those that
 * compile them too. Every extension then keeps its kernels among its own sources (the plan
 * compiles each once per toolkit and flag set, and torch, where it holds no Python header);
 * the table keeps no source, only the archs and nvcc flags. */
static void untable_kernels(struct arena *a, const struct capture *c, struct split *sp,
                            const bool *tabled, struct ktable *k)
{
	for (size_t e = 0; e < c->n_exts; e++)
		for (size_t i = 0; tabled[e] && i < sp[e].kernels.n; i++)
			strv_push(a, &sp[e].binding, sp[e].kernels.v[i]);
	k->src = (struct strv){0};
	k->inc = (struct strv){0};
	k->def = (struct strv){0};
	k->cxx = NULL;
}

/* Groups the extensions' kernel sources into one table; an extension whose kernels need other
 * defines, C++ or nvcc flags keeps them among its own sources (sp[e].binding), with its own
 * nvcc-flags where they differ from the table's, and so then does every other one
 * (untable_kernels). */
static void group_kernels(struct arena *a, const struct capture *c, struct split *sp,
                          const struct flags *fl, struct ktable *k)
{
	bool *tabled = arena_calloc(a, c->n_exts + 1, sizeof(*tabled));
	bool moved = false;
	for (size_t e = 0; e < c->n_exts; e++) {
		const struct cap_ext *x = &c->exts[e];
		bool has_cu = false, has_cxx = false;
		for (size_t i = 0; i < sp[e].kernels.n; i++) {
			has_cu |= is_cu(sp[e].kernels.v[i]);
			has_cxx |= !is_cu(sp[e].kernels.v[i]);
		}
		k->openmp |= fl[e].openmp;
		if (!sp[e].kernels.n)
			continue;
		bool nvcc_clash = has_cu && k->nvcc && !strv_eq(&k->nvcc->nvcc, &fl[e].nvcc);
		bool clash = nvcc_clash ||
		             (has_cxx && k->cxx && !strv_eq(&k->cxx->cxx, &fl[e].cxx)) ||
		             (k->def_set && !strv_eq(&k->def, &x->defines));
		/* Such an extension compiles its kernels among its own sources, with its own
		 * defines, C++ and nvcc flags: once per (toolkit, flags) where they hold no Python
		 * header (per torch too for a torch extension: docs/manual/torch.md). The kernels
		 * table keeps one flag set. */
		if (clash) {
			for (size_t i = 0; i < sp[e].kernels.n; i++)
				strv_push(a, &sp[e].binding, sp[e].kernels.v[i]);
			/* An extension's .cu takes the kernels' nvcc flags (and archs): the first
			 * such extension's, when no kernel .cu has set them; other nvcc flags are
			 * its own nvcc-flags. */
			if (has_cu && !k->nvcc)
				k->nvcc = &fl[e], k->e_nvcc = e;
			else if (has_cu)
				sp[e].own_nvcc = nvcc_clash;
			moved = true;
			continue;
		}
		tabled[e] = true;
		for (size_t i = 0; i < sp[e].kernels.n; i++)
			push_new(a, &k->src, sp[e].kernels.v[i]);
		for (size_t i = 0; i < x->include_dirs.n; i++)
			push_new(a, &k->inc, x->include_dirs.v[i]);
		if (has_cu && !k->nvcc)
			k->nvcc = &fl[e], k->e_nvcc = e;
		if (has_cxx && !k->cxx)
			k->cxx = &fl[e], k->e_cxx = e;
		if (!k->def_set)
			k->def = x->defines, k->def_set = true;
	}
	if (moved)
		untable_kernels(a, c, sp, tabled, k);
}

/* Appends [tool.cuwheel.kernels]: its sources, dirs, defines, flags and archs (the
 * --setup-env TORCH_CUDA_ARCH_LIST, else setup.py's -gencode/-arch, else the default). */
static void write_kernels(struct arena *a, struct diag *d, struct strbuf *sb,
                          const struct init_inputs *in, const struct ktable *k)
{
	const struct capture *c = in->cap;
	sb_puts(sb, "\n[tool.cuwheel.kernels]\n");
	if (!k->src.n)
		sb_puts(sb,
		        c->torch && c->build_ext_torch
		            ? "# No kernel shared by every extension: each extension compiles its "
		              "own kernels among\n# its sources, once per toolkit, torch and flag "
		              "set; this table holds their archs\n# and nvcc flags.\n"
		            : "# No kernel shared by every extension: each extension compiles its "
		              "own kernels among\n# its sources, once per toolkit and flag set; "
		              "this table holds their archs\n# and nvcc flags.\n");
	else
		sb_puts(sb,
		        "# Compiled once per toolkit: every .cu (plan proves one that includes a "
		        "Python header\n# Python-free, or refuses it by name) and the .c/.cpp "
		        "sources whose include closure\n# holds no Python header (the "
		        "preprocessor's answer).\n");
	struct strv globs = {0};
	compact(a, in->project_dir, &k->src, &globs);
	kv_arr(sb, "sources", &globs,
	       k->src.n ? at(a, c, c->exts[0].line_sources, "sources")
	                : "each extension lists its own kernels");
	if (k->inc.n)
		kv_arr(sb, "include-dirs", &k->inc,
		       at(a, c, c->exts[0].line_include_dirs, "include_dirs"));
	if (k->def.n)
		kv_arr(sb, "defines", &k->def, at(a, c, c->exts[0].line_defines, "define_macros"));
	const struct flags *nv = k->nvcc;
	if (nv && nv->nvcc.n)
		kv_arr(sb, "nvcc-flags", &nv->nvcc,
		       at(a, c, c->exts[k->e_nvcc].line_args,
		          nv->nvcc_left.n ? arena_printf(a,
		                                         "extra_compile_args[\"nvcc\"] (less %s: "
		                                         "cuwheel passes it)",
		                                         joined(a, &nv->nvcc_left))
		                          : "extra_compile_args[\"nvcc\"]"));
	if (k->cxx && k->cxx->cxx.n)
		kv_arr(sb, "cxx-flags", &k->cxx->cxx,
		       at(a, c, c->exts[k->e_cxx].line_args,
		          c->exts[k->e_cxx].args_per_compiler
		              ? "extra_compile_args[\"cxx\"], for the .c/.cpp kernels"
		              : "extra_compile_args, for the .c/.cpp kernels"));
	const char *arch = setenv_value(in, "TORCH_CUDA_ARCH_LIST");
	if (!arch && nv && nv->archs.n) {
		const char *list = joined(a, &nv->archs);
		kv_str(sb, "archs", list,
		       at(a, c, c->exts[k->e_nvcc].line_args,
		          "extra_compile_args[\"nvcc\"] -gencode/-arch (override: CUWHEEL_ARCHS or "
		          "--setup-env TORCH_CUDA_ARCH_LIST)"));
		diag_msg(
		    d, DIAG_NOTE,
		    "setup.py's nvcc arch flags (%s) became archs = \"%s\": one list for plan, "
		    "build and CI (CUWHEEL_ARCHS or --setup-env TORCH_CUDA_ARCH_LIST=... "
		    "overrides it)",
		    joined(a, &nv->nvcc_left), list);
	} else
		kv_str(sb, "archs", arch ? arch : DEFAULT_ARCHS,
		       arch ? "--setup-env TORCH_CUDA_ARCH_LIST"
		            : "cuwheel's default (no TORCH_CUDA_ARCH_LIST given)");
	if (c->torch)
		kv_str(sb, "uses-torch", "auto",
		       "the preprocessor decides per build (cuwheel plan shows it)");
}

bool init_config_write(struct arena *a, struct diag *d, const struct init_inputs *in, char **text)
{
	const struct capture *c = in->cap;
	struct split *sp = arena_calloc(a, c->n_exts + 1, sizeof(*sp));
	struct flags *fl = arena_calloc(a, c->n_exts + 1, sizeof(*fl));
	bool ok = true;
	for (size_t e = 0; e < c->n_exts; e++) {
		ok &= classify(a, d, in, &c->exts[e], &sp[e]);
		split_flags(a, &c->exts[e], &fl[e]);
	}
	struct ktable k = {0};
	if (!ok)
		return false;
	group_kernels(a, c, sp, fl, &k);
	bool openmp = k.openmp;
	for (size_t e = 0; e < c->n_exts; e++)
		if (!sp[e].binding.n) {
			diag_path(d, DIAG_ERROR, at(a, c, c->exts[e].line, ""),
			          "no source of extension '%s' includes Python.h or pybind11: "
			          "nothing to compile per Python, so nothing defines PyInit_%s",
			          c->exts[e].name,
			          strrchr(c->exts[e].name, '.') ? strrchr(c->exts[e].name, '.') + 1
			                                        : c->exts[e].name);
			diag_msg(d, DIAG_HINT,
			         "name its binding source in [tool.cuwheel.extension] "
			         "sources by hand");
			return false;
		}

	for (size_t e = 0; e < c->n_exts; e++) {
		const char *kind = kind_of(c, &c->exts[e], &sp[e]);
		bool defined = true;
		const char *why = NULL;
		/* Objects and libraries setup.py links may hold the PyInit_: a module it stays. */
		if ((!strcmp(kind, "capi") || !strcmp(kind, "torch")) &&
		    !c->exts[e].extra_objects.n &&
		    !init_module_defined(a, d, in, &c->exts[e], &defined, &why))
			return false;
		sp[e].library = !defined;
	}

	size_t n_cu = 0;
	for (size_t e = 0; e < c->n_exts; e++)
		for (size_t i = 0; i < c->exts[e].sources.n; i++)
			n_cu += is_cu(c->exts[e].sources.v[i]);
	const char *cpu_only = n_cu ? NULL : cpu_only_reason(a, in);

	struct strbuf sb = {0};
	if (in->header)
		comment_line(&sb, in->header);
	struct strbuf ran = {0};
	sb_printf(&ran, "setup.py ran with Python %s%s%s", c->python ? c->python : "?",
	          c->torch ? ", torch " : "", c->torch ? c->torch : "");
	for (size_t i = 0; in->setenv && in->setenv[i]; i++)
		sb_printf(&ran, "%s%s", i ? " " : " and ", in->setenv[i]);
	sb_puts(&ran, ", in a copy, without network.");
	comment_line(&sb, sb_to_arena(&ran, a));
	sb_puts(&sb, "# Each value says where it came from; review them, then `cuwheel plan "
	             "--config FILE`.\n");
	if (cpu_only) {
		diag_path(d, DIAG_WARNING, at(a, c, c->setup_line, ""), "%s", cpu_only);
		diag_msg(
		    d, DIAG_HINT,
		    "set the switch setup.py reads to build CUDA (--setup-env NAME=1, or "
		    "[tool.cuwheel] setup-env = {NAME = \"1\"} in pyproject.toml; FORCE_CUDA=1 "
		    "is set unless given), or ignore this for a CPU-only build");
		comment_line(&sb, arena_printf(a, "Warning: %s", cpu_only));
	}
	write_project(a, &sb, in);

	sb_puts(&sb, "\n[tool.cuwheel]\n");
	const char *pyfiles = write_packages(a, &sb, in);
	if (openmp && c->torch)
		kv_str(&sb, "openmp", "auto",
		       at(a, c, c->exts[0].line_args,
		          "extra_compile_args[\"cxx\"] has -DAT_PARALLEL_OPENMP -fopenmp (torch's "
		          "parallel_info() says OpenMP)"));
	else if (openmp)
		kv_str(&sb, "openmp", "on",
		       at(a, c, c->exts[0].line_args, "extra_compile_args[\"cxx\"] -fopenmp"));
	if (in->build_dir_key)
		kv_str(&sb, "build-dir", in->build_dir_key, NULL);
	if (in->dist_dir_key)
		kv_str(&sb, "dist-dir", in->dist_dir_key, NULL);
	if (pyfiles)
		sb_puts(&sb, pyfiles);

	if (k.src.n || k.nvcc)
		write_kernels(a, d, &sb, in, &k);

	for (size_t e = 0; e < c->n_exts; e++)
		write_extension(a, &sb, in, e, sp, fl);

	write_matrix(a, &sb, in, sp, n_cu > 0);
	write_import_test(a, &sb, c, sp);
	*text = sb_to_arena(&sb, a);
	return true;
}
