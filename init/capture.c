/* capture.c: runs a project's setup.py under the recorder (init/capture_setup.py) in a
 * throwaway copy inside the sandbox (base/sandbox.h), with a time limit and capped output, and
 * reads what it recorded. */
#include "init/capture.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/os-tmp.h"
#include "standards/digest.h"
#include "base/strbuf.h"
#include "standards/json_values.h"
#include "toolchain/code_flags.h"

#define CAPTURE_TIMEOUT_S  600
#define CAPTURE_MAX_OUTPUT (16u << 20)
#define CAPTURE_TAIL       4096

static const char *hint_by_hand =
    "describe the build as [tool.cuwheel] by hand (docs/manual/init.md; examples/gsplat is "
    "one), or fix what stops setup.py and run `cuwheel init` again";

/* The switches release builds set, which setup.py files read to decide whether to build CUDA
 * on a machine without a GPU (torch.cuda.is_available() is false there). */
static const char *const default_switches[] = {"FORCE_CUDA=1"};

const char *const *capture_switches(struct arena *a, const char *const *given)
{
	struct strv out = {0};
	for (size_t i = 0; given && given[i]; i++)
		strv_push(a, &out, given[i]);
	for (size_t k = 0; k < sizeof(default_switches) / sizeof(*default_switches); k++) {
		size_t n = strcspn(default_switches[k], "=");
		bool set = false;
		for (size_t i = 0; given && given[i]; i++)
			set |= !strncmp(given[i], default_switches[k], n + 1);
		if (!set)
			strv_push(a, &out, default_switches[k]);
	}
	strv_push(a, &out, NULL);
	return (const char *const *)out.v;
}

/* --- reading the recorder's JSON ------------------------------------------------------- */

static int jline(json_t *lines, const char *key)
{
	json_t *v = json_object_get(lines, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : 0;
}

/* The lines of v, a string of lines (the empty ones left out) or an array of strings. */
static void jlines(struct arena *a, json_t *v, struct strv *out)
{
	if (!json_is_string(v)) {
		json_strv_read(a, v, out);
		return;
	}
	const char *p = json_string_value(v);
	while (*p) {
		size_t n = strcspn(p, "\n");
		if (n)
			strv_push(a, out, arena_strndup(a, p, n));
		p += n + (p[n] == '\n');
	}
}

static void pair_add(struct arena *a, struct str_pairs *p, const char *k, const char *v)
{
	p->v = arena_realloc(a, p->v, p->n, p->n + 1, sizeof(*p->v));
	p->v[p->n].key = k;
	p->v[p->n++].value = v;
}

static void read_ext(struct arena *a, json_t *e, struct cap_ext *x)
{
	x->name = json_str_read(a, e, "name");
	json_strv_read(a, json_object_get(e, "sources"), &x->sources);
	json_strv_read(a, json_object_get(e, "include_dirs"), &x->include_dirs);
	json_strv_read(a, json_object_get(e, "library_dirs"), &x->library_dirs);
	json_strv_read(a, json_object_get(e, "runtime_library_dirs"), &x->runtime_library_dirs);
	json_strv_read(a, json_object_get(e, "undef_macros"), &x->undefs);
	json_strv_read(a, json_object_get(e, "extra_link_args"), &x->link_args);
	json_strv_read(a, json_object_get(e, "extra_objects"), &x->extra_objects);
	json_strv_read(a, json_object_get(e, "libraries"), &x->libraries);
	x->py_limited_api = json_is_true(json_object_get(e, "py_limited_api"));
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(e, "define_macros"), i, v)
	{
		json_t *n = json_array_get(v, 0), *val = json_array_get(v, 1);
		if (!json_is_string(n))
			continue;
		strv_push(a, &x->defines,
		          json_is_string(val) ? arena_printf(a, "%s=%s", json_string_value(n),
		                                             json_string_value(val))
		                              : arena_strdup(a, json_string_value(n)));
	}
	json_t *args = json_object_get(e, "extra_compile_args");
	x->args_per_compiler = !json_object_get(args, "*");
	json_strv_read(a, json_object_get(args, x->args_per_compiler ? "cxx" : "*"), &x->cxx_args);
	json_strv_read(a, json_object_get(args, "nvcc"), &x->nvcc_args);
	json_array_foreach(json_object_get(e, "dropped"), i, v)
	{
		const char *what = json_str_read(a, v, "what"), *val = json_str_read(a, v, "value");
		if (what && val)
			strv_push(a, &x->dropped, arena_printf(a, "%s %s", what, val));
	}
	json_t *lines = json_object_get(e, "lines"), *cols = json_object_get(e, "cols");
	x->line = jline(e, "line") ? jline(e, "line") : jline(lines, "@");
	x->col = jline(cols, "@");
	x->col_args = jline(cols, "extra_compile_args");
	x->col_link_args = jline(cols, "extra_link_args");
	const char *str;
	json_object_foreach(json_object_get(e, "string_pos"), str, v)
	{
		json_t *l = json_array_get(v, 0), *c = json_array_get(v, 1);
		if (json_is_integer(l) && json_is_integer(c))
			pair_add(a, &x->string_pos, arena_strdup(a, str),
			         arena_printf(a, "%d:%d", (int)json_integer_value(l),
			                      (int)json_integer_value(c)));
	}
	x->line_name = jline(lines, "#0") ? jline(lines, "#0") : jline(lines, "name");
	x->line_sources = jline(lines, "#1") ? jline(lines, "#1") : jline(lines, "sources");
	x->line_include_dirs = jline(lines, "include_dirs");
	x->line_library_dirs = jline(lines, "library_dirs");
	x->line_defines = jline(lines, "define_macros");
	x->line_undefs = jline(lines, "undef_macros");
	x->line_args = jline(lines, "extra_compile_args");
	x->line_link_args = jline(lines, "extra_link_args");
	x->line_libraries = jline(lines, "libraries");
	int *all[] = {&x->line_name,         &x->line_sources,   &x->line_include_dirs,
	              &x->line_library_dirs, &x->line_defines,   &x->line_undefs,
	              &x->line_args,         &x->line_link_args, &x->line_libraries};
	for (size_t k = 0; k < sizeof(all) / sizeof(*all); k++)
		if (!*all[k])
			*all[k] = x->line; /* not written in the call: the call's own line */
}

static void read_entry_points(struct arena *a, json_t *ep, struct capture *c)
{
	if (!json_is_object(ep))
		return;
	const char *group;
	json_t *list;
	c->entry_groups = arena_calloc(a, json_object_size(ep) + 1, sizeof(*c->entry_groups));
	json_object_foreach(ep, group, list)
	{
		struct entry_group *g = &c->entry_groups[c->n_entry_groups++];
		g->group = arena_strdup(a, group);
		struct strv lines = {0};
		/* an INI-style string: "name = mod:fn" lines, or a list of them */
		jlines(a, list, &lines);
		g->entries.v = arena_calloc(a, lines.n + 1, sizeof(*g->entries.v));
		for (size_t i = 0; i < lines.n; i++) {
			const char *eq = strchr(lines.v[i], '=');
			if (!eq)
				continue;
			const char *k = lines.v[i], *ke = eq, *v = eq + 1;
			while (*k == ' ' || *k == '\t')
				k++;
			while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t vn = strlen(v);
			while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t' || v[vn - 1] == '\r'))
				vn--;
			if (ke == k)
				continue;
			struct str_pair *p = &g->entries.v[g->entries.n++];
			p->key = arena_strndup(a, k, (size_t)(ke - k));
			p->value = arena_strndup(a, v, vn);
		}
	}
}

static bool has_key(const struct str_pairs *p, const char *k)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].key, k))
			return true;
	return false;
}

/* The metadata keywords of m; with lines NULL (setuptools' own answer), only those the call
 * did not give, each with line -1. */
static void read_meta(struct arena *a, json_t *m, json_t *lines, struct capture *c)
{
	static const char *const keys[] = {"name",   "version",         "description",
	                                   "url",    "python_requires", "license",
	                                   "author", "author_email",    "keywords"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		json_t *v = json_object_get(m, keys[i]);
		const char *s = NULL;
		if (json_is_string(v))
			s = arena_strdup(a, json_string_value(v));
		else if (json_is_array(v)) {
			struct strv l = {0};
			json_strv_read(a, v, &l);
			struct strbuf sb = {0};
			for (size_t k = 0; k < l.n; k++)
				sb_printf(&sb, "%s%s", k ? "," : "", l.v[k]);
			s = sb_to_arena(&sb, a);
		}
		if (!s || (!lines && has_key(&c->meta, keys[i])))
			continue;
		pair_add(a, &c->meta, keys[i], s);
		pair_add(a, &c->meta_lines, keys[i],
		         arena_printf(a, "%d", lines ? jline(lines, keys[i]) : -1));
	}
	/* setuptools' requirements replace the keywords' (the same ones, with the markers of
	 * extras keys such as ":sys_platform == 'linux'" moved into the requirements). */
	if (json_object_get(m, "install_requires")) {
		c->install_requires = (struct strv){0};
		jlines(a, json_object_get(m, "install_requires"), &c->install_requires);
		if (!has_key(&c->meta_lines, "install_requires"))
			pair_add(
			    a, &c->meta_lines, "install_requires",
			    arena_printf(a, "%d", lines ? jline(lines, "install_requires") : -1));
	}
	json_t *ex = json_object_get(m, "extras_require");
	if (json_is_object(ex)) {
		const char *name;
		json_t *deps;
		c->n_extras = 0;
		c->extras = arena_calloc(a, json_object_size(ex) + 1, sizeof(*c->extras));
		json_object_foreach(ex, name, deps)
		{
			struct extra *e = &c->extras[c->n_extras++];
			e->name = arena_strdup(a, name);
			json_strv_read(a, deps, &e->deps);
		}
		if (!has_key(&c->meta_lines, "extras_require"))
			pair_add(
			    a, &c->meta_lines, "extras_require",
			    arena_printf(a, "%d", lines ? jline(lines, "extras_require") : -1));
	}
	json_t *pd = json_object_get(m, "include_package_data");
	c->package_data |= json_is_true(pd);
}

/* setuptools' own answer (the Distribution once it read every configuration source): the
 * files build_py lays out, and what the call's keywords left to setup.cfg, pyproject.toml or
 * auto-discovery (each with line -1). */
static void read_setuptools(struct arena *a, json_t *st, struct capture *c)
{
	c->st_answered = true;
	json_t *files = json_object_get(st, "files");
	c->st_files.v = arena_calloc(a, json_array_size(files) + 1, sizeof(*c->st_files.v));
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		const char *dest = json_string_value(json_array_get(f, 0));
		const char *src = json_string_value(json_array_get(f, 1));
		if (dest && src)
			c->st_files.v[c->st_files.n++] =
			    (struct str_pair){arena_strdup(a, dest), arena_strdup(a, src)};
	}
	if (!c->packages.n) {
		json_strv_read(a, json_object_get(st, "packages"), &c->packages);
		c->line_packages = c->packages.n ? -1 : c->line_packages;
	}
	if (!c->py_modules.n) {
		json_strv_read(a, json_object_get(st, "py_modules"), &c->py_modules);
		c->line_py_modules = c->py_modules.n ? -1 : c->line_py_modules;
	}
	if (!c->scripts.n) {
		json_strv_read(a, json_object_get(st, "scripts"), &c->scripts);
		c->line_scripts = c->scripts.n ? -1 : c->line_scripts;
	}
	json_t *df = json_object_get(st, "data_files"), *d;
	json_array_foreach(df, i, d)
	{
		struct strv names = {0};
		json_strv_read(a, json_array_get(d, 1), &names);
		const char *dir = json_string_value(json_array_get(d, 0));
		for (size_t k = 0; k < names.n; k++)
			strv_push(a, &c->data_files,
			          dir && *dir ? arena_printf(a, "%s/%s", dir, names.v[k])
			                      : names.v[k]);
	}
	if (!c->n_entry_groups) {
		read_entry_points(a, json_object_get(st, "entry_points"), c);
		c->line_entry_points = c->n_entry_groups ? -1 : c->line_entry_points;
	}
	read_meta(a, json_object_get(st, "metadata"), NULL, c);
}

bool capture_parse(struct arena *a, struct diag *d, const char *path, const char *text, size_t len,
                   struct capture *out)
{
	memset(out, 0, sizeof(*out));
	out->use_ninja = -1;
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root || !json_is_object(root) ||
	    json_integer_value(json_object_get(root, "format")) != 1) {
		diag_path(d, DIAG_ERROR, path,
		          "the recorder wrote no readable record (format 1)%s%s", root ? "" : ": ",
		          root ? "" : je.text);
		json_decref(root);
		return false;
	}
	out->python = json_str_read(a, root, "python");
	json_strv_read(a, json_object_get(root, "cuda_switches"), &out->cuda_switches);
	json_strv_read(a, json_object_get(root, "cu_files"), &out->cu_files);
	json_t *t = json_object_get(root, "torch");
	out->torch = json_str_read(a, t, "version");
	out->torch_cuda = json_str_read(a, t, "cuda");
	json_t *calls = json_object_get(root, "calls");
	json_t *call = json_array_get(calls, 0);
	if (call) {
		json_t *lines = json_object_get(call, "lines");
		out->setup_line = jline(call, "line");
		out->setup_col = jline(json_object_get(call, "cols"), "@");
		json_t *exts = json_object_get(call, "extensions");
		out->exts = arena_calloc(a, json_array_size(exts) + 1, sizeof(*out->exts));
		size_t i;
		json_t *e;
		json_array_foreach(exts, i, e) read_ext(a, e, &out->exts[out->n_exts++]);
		json_t *be = json_object_get(call, "build_ext");
		if (json_is_object(be)) {
			out->build_ext = json_str_read(a, be, "class");
			out->build_ext_torch = json_is_true(json_object_get(be, "torch"));
			json_t *opt = json_object_get(be, "options");
			out->no_abi_suffix =
			    json_is_true(json_object_get(opt, "no_python_abi_suffix"));
			json_t *nj = json_object_get(opt, "use_ninja");
			if (json_is_boolean(nj))
				out->use_ninja = json_is_true(nj);
		}
		json_strv_read(a, json_object_get(call, "packages"), &out->packages);
		json_t *pd = json_object_get(call, "package_dir");
		const char *k;
		json_t *v;
		json_object_foreach(pd, k, v)
		{
			if (json_is_string(v))
				pair_add(a, &out->package_dir, arena_strdup(a, k),
				         arena_strdup(a, json_string_value(v)));
		}
		out->package_data = json_object_size(json_object_get(call, "package_data")) > 0;
		json_strv_read(a, json_object_get(call, "py_modules"), &out->py_modules);
		json_strv_read(a, json_object_get(call, "scripts"), &out->scripts);
		json_strv_read(a, json_object_get(call, "other_keywords"), &out->other_keywords);
		read_entry_points(a, json_object_get(call, "entry_points"), out);
		read_meta(a, json_object_get(call, "metadata"), lines, out);
		out->line_cmdclass = jline(lines, "cmdclass");
		out->line_packages = jline(lines, "packages");
		out->line_package_dir = jline(lines, "package_dir");
		out->line_package_data = jline(lines, "package_data");
		out->line_py_modules = jline(lines, "py_modules");
		out->line_entry_points = jline(lines, "entry_points");
		out->line_scripts = jline(lines, "scripts");
		json_t *st = json_object_get(call, "setuptools");
		if (json_is_object(st))
			read_setuptools(a, st, out);
		out->st_error = json_str_read(a, call, "setuptools_error");
	}
	json_decref(root);
	return true;
}

/* --- what went wrong, told once -------------------------------------------------------- */

/* SETUP:LINE, or SETUP alone when the line is not known (0). */
static const char *at_line(struct arena *a, const char *setup, int line)
{
	return line ? arena_printf(a, "%s:%d", setup, line) : setup;
}

/* The notes after a failure of setup.py: its last output (when it printed any), and the hint
 * to describe the build by hand. */
static void tell_tail_and_hint(struct diag *d, const char *tail)
{
	if (tail && *tail)
		diag_msg(d, DIAG_NOTE, "its last output:\n%s", tail);
	diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
}

/* The recorder's verdict on the run (error, network, calls), as one diagnostic; true when
 * the run recorded exactly one setup() call and nothing went wrong. */
static bool verdict(struct arena *a, struct diag *d, const char *setup, json_t *root,
                    const char *tail)
{
	json_t *net = json_object_get(root, "network");
	if (json_array_size(net)) {
		json_t *n0 = json_array_get(net, 0);
		diag_path(d, DIAG_ERROR, at_line(a, setup, jline(n0, "line")),
		          "setup.py tried the network (%s %s): the capture runs it without one",
		          json_str_read(a, n0, "call"), json_str_read(a, n0, "target"));
		diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
		return false;
	}
	json_t *err = json_object_get(root, "error");
	if (json_is_object(err)) {
		const char *kind = json_str_read(a, err, "kind"),
		           *msg = json_str_read(a, err, "message");
		const char *where = at_line(a, setup, jline(err, "line"));
		if (kind && !strcmp(kind, "missing-module"))
			diag_path(d, DIAG_ERROR, where,
			          "setup.py needs the module '%s', which the capture's Python does "
			          "not have (%s)",
			          json_str_read(a, err, "module"), msg);
		else if (kind && !strcmp(kind, "exit"))
			diag_path(d, DIAG_ERROR, where, "setup.py exited with %s before setup()",
			          msg);
		else
			diag_path(d, DIAG_ERROR, where, "setup.py failed: %s", msg);
		tell_tail_and_hint(d, tail);
		return false;
	}
	size_t n = json_array_size(json_object_get(root, "calls"));
	if (n == 0) {
		diag_path(d, DIAG_ERROR, setup,
		          "setup.py ran to its end without calling setup() (it calls it only under "
		          "a condition, or from a main() that `python setup.py` does not reach)");
		diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
		return false;
	}
	if (n > 1) {
		diag_path(d, DIAG_ERROR, setup, "setup.py called setup() %zu times", n);
		diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
		return false;
	}
	return true;
}

/* SETUP:LINE:COL of string s in x's extra_*_args as written, else of the keyword (line and
 * col), else SETUP:LINE. */
static const char *at_string(struct arena *a, const char *setup, const struct cap_ext *x,
                             const char *s, int line, int col)
{
	for (size_t i = 0; i < x->string_pos.n; i++)
		if (!strcmp(x->string_pos.v[i].key, s))
			return arena_printf(a, "%s:%s", setup, x->string_pos.v[i].value);
	return col ? arena_printf(a, "%s:%d:%d", setup, line, col) : at_line(a, setup, line);
}

/* Refuses an argument of x's compile or link args that makes a compiler or linker run a
 * program or load code (toolchain/code_flags.h): what setup.py says does not become one. */
static bool check_code_flags(struct arena *a, struct diag *d, const char *setup,
                             const struct cap_ext *x)
{
	const struct {
		const struct strv *v;
		enum code_flags_for who;
		const char *key;
		int line, col;
	} lists[] = {
	    {&x->cxx_args, CODE_FLAGS_CC,
	     x->args_per_compiler ? "extra_compile_args[\"cxx\"]" : "extra_compile_args",
	     x->line_args, x->col_args},
	    {&x->nvcc_args, CODE_FLAGS_NVCC, "extra_compile_args[\"nvcc\"]", x->line_args,
	     x->col_args},
	    {&x->link_args, CODE_FLAGS_CC, "extra_link_args", x->line_link_args, x->col_link_args},
	};
	bool ok = true;
	for (size_t l = 0; l < sizeof(lists) / sizeof(*lists); l++) {
		struct code_flag_hit h;
		for (size_t from = 0; code_flags_scan((const char *const *)lists[l].v->v,
		                                      lists[l].v->n, lists[l].who, from, &h);
		     from = h.next) {
			const char *flag = lists[l].v->v[h.at];
			diag_path(d, DIAG_ERROR,
			          at_string(a, setup, x, flag, lists[l].line, lists[l].col),
			          "extension '%s': %s holds '%s', which %s: cuwheel does not take "
			          "it from setup.py",
			          x->name ? x->name : "?", lists[l].key, flag, h.why);
			ok = false;
		}
	}
	if (!ok)
		diag_msg(d, DIAG_HINT,
		         "if the project needs it, write the build as [tool.cuwheel] by hand and "
		         "list each such argument in [tool.cuwheel] trusted-flags "
		         "(docs/manual/init.md)");
	return ok;
}

/* Checks what the recorded extensions can be built from. */
static bool check_exts(struct arena *a, struct diag *d, const char *setup, const struct capture *c)
{
	if (c->n_exts == 0) {
		diag_path(d, DIAG_ERROR, at_line(a, setup, c->setup_line),
		          "setup() lists no extension module (ext_modules is empty): nothing for "
		          "cuwheel to compile; the --setup-env switches given decide what setup.py "
		          "builds (FORCE_CUDA=1, BUILD_NO_CUDA=0, ...)");
		diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
		return false;
	}
	for (size_t i = 0; i < c->n_exts; i++) {
		const struct cap_ext *x = &c->exts[i];
		if (x->sources.n == 0) {
			diag_path(d, DIAG_ERROR, arena_printf(a, "%s:%d", setup, x->line),
			          "extension '%s' lists no sources: its build_ext (%s) builds it "
			          "another way (CMake, a Makefile), which cuwheel cannot read",
			          x->name ? x->name : "?",
			          c->build_ext ? c->build_ext : "setuptools'");
			diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
			return false;
		}
		for (size_t s = 0; s < x->sources.n; s++)
			if (x->sources.v[s][0] == '/') {
				diag_path(d, DIAG_ERROR, arena_printf(a, "%s:%d", setup, x->line),
				          "extension '%s' compiles '%s', outside the project",
				          x->name, x->sources.v[s]);
				diag_msg(d, DIAG_HINT, "%s", hint_by_hand);
				return false;
			}
	}
	bool ok = true;
	for (size_t i = 0; i < c->n_exts; i++)
		ok &= check_code_flags(a, d, setup, &c->exts[i]);
	return ok;
}

/* --- the run --------------------------------------------------------------------------- */

static void env_copy(struct arena *a, struct strv *e, const char *const *env, const char *name)
{
	const char *v = env_nonempty(env, name);
	if (v)
		strv_push(a, e, arena_printf(a, "%s=%s", name, v));
}

/* The last lines of the output (at most CAPTURE_TAIL bytes, whole lines, the last few). */
static const char *tail_text(struct arena *a, const struct strbuf *t)
{
	const char *s = t->len > CAPTURE_TAIL ? t->buf + t->len - CAPTURE_TAIL
	                : t->buf              ? t->buf
	                                      : "";
	const char *p = s + strlen(s);
	int lines = 0;
	while (p > s && lines < 8)
		if (*--p == '\n' && p[1])
			lines++;
	if (p > s || *p == '\n')
		p++;
	size_t n = strlen(p);
	while (n && p[n - 1] == '\n')
		n--;
	return arena_strndup(a, p, n);
}

/* The environment setup.py gets: only what it needs and the switches given, no proxy that
 * works, a home and a temp dir of its own inside the throwaway copy's dir. */
static const char *const *capture_env(struct arena *a, const struct capture_opts *o,
                                      const char *home, const char *ttmp)
{
	struct strv env = {0};
	env_copy(a, &env, o->env, "PATH");
	env_copy(a, &env, o->env, "CUDA_HOME");
	env_copy(a, &env, o->env, "CUDA_PATH");
	env_copy(a, &env, o->env, "CC");
	env_copy(a, &env, o->env, "CXX");
	strv_push(a, &env, arena_printf(a, "HOME=%s", home));
	strv_push(a, &env, arena_printf(a, "TMPDIR=%s", ttmp));
	strv_push(a, &env, "LC_ALL=C.UTF-8");
	strv_push(a, &env, "PYTHONDONTWRITEBYTECODE=1");
	strv_push(a, &env, "PYTHONNOUSERSITE=1");
	strv_push(a, &env, "PYTHONUNBUFFERED=1");
	strv_push(a, &env, "PIP_NO_INDEX=1");
	static const char *const proxies[] = {"http_proxy",  "https_proxy", "HTTP_PROXY",
	                                      "HTTPS_PROXY", "ALL_PROXY",   "all_proxy"};
	for (size_t i = 0; i < sizeof(proxies) / sizeof(*proxies); i++)
		strv_push(a, &env, arena_printf(a, "%s=http://127.0.0.1:9", proxies[i]));
	for (size_t i = 0; o->setenv && o->setenv[i]; i++)
		strv_push(a, &env, o->setenv[i]);
	strv_push(a, &env, NULL);
	return env.v;
}

/* Copies the project into src: tar through a pipe (argv only), less .git and the build dir. */
static bool copy_project(struct arena *a, struct diag *d, const struct capture_opts *o,
                         const char *src)
{
	struct strv from = {0};
	strv_push(a, &from, "tar");
	strv_push(a, &from, "-C");
	strv_push(a, &from, o->project_dir);
	strv_push(a, &from, "--exclude=./.git");
	if (o->skip_dir)
		strv_push(a, &from, arena_printf(a, "--exclude=./%s", o->skip_dir));
	strv_push(a, &from, "-cf");
	strv_push(a, &from, "-");
	strv_push(a, &from, ".");
	strv_push(a, &from, NULL);
	const char *to[] = {"tar", "-C", src, "-xf", "-", NULL};
	struct os_run tr = {.argv = to, .capture = true};
	struct strbuf tout = {0};
	int fst = 0, tst = 0;
	if (!os_run_pipe(d, from.v, &tr, &tout, &fst, &tst)) {
		sb_release(&tout);
		return false;
	}
	if (fst || tst)
		diag_path(d, DIAG_ERROR, o->project_dir, "cannot copy it for the capture (tar: %s)",
		          sb_str(&tout));
	sb_release(&tout);
	return !fst && !tst;
}

/* Runs the recorder on the copy: in the sandbox (tmp, the capture's dir, the one place it
 * can write) unless o->sandbox is NULL. Reading its output stops once it has exited and the
 * pipe is quiet (os_run), at the time limit or past the output cap (*why says which). */
static bool run_recorder(struct arena *a, struct diag *d, const struct capture_opts *o,
                         const char *tmp, const char *const *env, struct strbuf *out,
                         const char **why, int *status)
{
	const char *src = os_join(a, tmp, "src");
	struct strv argv = {0};
	if (o->sandbox) {
		struct sandbox_spec spec = {.writable = tmp, .readable = o->readable, .cwd = src};
		sandbox_argv(a, o->sandbox, o->env, &spec, &argv);
	}
	strv_push(a, &argv, o->python);
	strv_push(a, &argv, os_join(a, tmp, "capture_setup.py"));
	strv_push(a, &argv, os_join(a, tmp, "record.json"));
	strv_push(a, &argv, src); /* the recorder starts there */
	strv_push(a, &argv, NULL);
	int timeout = o->timeout_s > 0 ? o->timeout_s : CAPTURE_TIMEOUT_S;
	size_t max_out = o->max_output ? o->max_output : CAPTURE_MAX_OUTPUT;
	struct os_run r = {.argv = argv.v,
	                   .cwd = src,
	                   .env = env,
	                   .env_only = true,
	                   .capture = true,
	                   .probe = true, /* past max_out: stopped, OS_STATUS_TOO_MUCH_OUTPUT */
	                   .max_output = max_out,
	                   .timeout_s = timeout};
	if (!os_run(d, &r, out, status))
		return false;
	*why = *status == OS_STATUS_TIMED_OUT
	           ? arena_printf(a, "it ran past the time limit (%d s)", timeout)
	       : *status == OS_STATUS_TOO_MUCH_OUTPUT
	           ? arena_printf(a, "it printed more than %zu MiB", max_out >> 20)
	           : NULL;
	return true;
}

/* Adds every entry under dir (rel: its path in the tree) to sb by name, kind, size and
 * mtime, sorted, less .git and skip at the top; links are not followed. */
static void tree_key(struct arena *a, struct strbuf *sb, const char *dir, const char *rel,
                     const struct capture_opts *o, int depth)
{
	struct strv names = {0};
	if (depth > 64 || !os_list_dir(a, dir, &names))
		return;
	for (size_t i = 0; i < names.n; i++) {
		const char *r = *rel ? os_join(a, rel, names.v[i]) : names.v[i];
		if ((!*rel && !strcmp(r, ".git")) || (o->skip_dir && !strcmp(r, o->skip_dir)) ||
		    (o->key_skip && !strcmp(r, o->key_skip)))
			continue;
		const char *path = os_join(a, dir, names.v[i]);
		struct os_stat st;
		if (!os_lstat(path, &st))
			continue;
		/* A directory by its entries (its own mtime moves with any of theirs). */
		if (st.kind == OS_KIND_DIR) {
			sb_printf(sb, "d %s\n", r);
			tree_key(a, sb, path, r, o, depth + 1);
			continue;
		}
		sb_printf(sb, "%d %llu %lld %s\n", (int)st.kind, (unsigned long long)st.size,
		          (long long)st.mtime_ns, r);
	}
}

/* The cache file of o's capture: o->cache_dir/<sha256 of the inputs>.json. */
static const char *capture_cache_file(struct arena *a, const struct capture_opts *o)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "capture v1\n");
	sb_add(&sb, (const char *)capture_setup_py, capture_setup_py_len);
	sb_printf(&sb, "\n%s %lld\n%s\n", o->python, (long long)os_mtime_ns(o->python),
	          o->cache_key ? o->cache_key : "");
	static const char *const vars[] = {"PATH", "CUDA_HOME", "CUDA_PATH", "CC", "CXX"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++) {
		const char *v = env_nonempty(o->env, vars[i]);
		sb_printf(&sb, "%s=%s\n", vars[i], v ? v : "");
	}
	for (size_t i = 0; o->setenv && o->setenv[i]; i++)
		sb_printf(&sb, "setenv %s\n", o->setenv[i]);
	tree_key(a, &sb, o->project_dir, "", o, 0);
	char hex[65];
	mem_sha256_hex(sb.buf ? sb.buf : "", sb.len, hex);
	sb_release(&sb);
	return arena_printf(a, "%s/%s.json", o->cache_dir, hex);
}

/* A record (the recorder's JSON) into out, as capture_run reads it; tail: setup.py's output. */
static bool capture_read(struct arena *a, struct diag *d, const char *shown, const char *text,
                         size_t len, const char *tail, struct capture *out)
{
	json_t *root = json_loadb(text, len, 0, NULL);
	bool good = root && verdict(a, d, shown, root, tail);
	json_decref(root);
	if (!good || !capture_parse(a, d, shown, text, len, out))
		return false;
	out->setup_py = shown;
	return check_exts(a, d, shown, out);
}

bool capture_run(struct arena *a, struct diag *d, const struct capture_opts *o, struct capture *out)
{
	const char *setup = os_join(a, o->project_dir, "setup.py");
	if (!os_exists(setup)) {
		diag_path(d, DIAG_ERROR, o->project_dir,
		          "holds no setup.py, and no [tool.cuwheel] says how to build it");
		diag_msg(d, DIAG_HINT,
		         "write [tool.cuwheel] in pyproject.toml or a config beside the project "
		         "(--config FILE); docs/manual/init.md");
		return false;
	}
	const char *cache = o->cache_dir ? capture_cache_file(a, o) : NULL;
	struct source kept;
	struct diag quiet = {0};
	if (cache && os_exists(cache) && os_read_file(a, &quiet, cache, &kept))
		return capture_read(a, d, "setup.py", kept.text, kept.len, "", out);
	if (!os_mkdir_p(d, o->tmp_parent))
		return false;
	char *tmp = arena_printf(a, "%s/capture-XXXXXX", o->tmp_parent);
	if (!os_mkdtemp_registered(d, tmp))
		return false;
	bool ok = false;
	struct strbuf output = {0};
	const char *src = os_join(a, tmp, "src"), *home = os_join(a, tmp, "home"),
	           *ttmp = os_join(a, tmp, "tmp"), *json = os_join(a, tmp, "record.json"),
	           *script = os_join(a, tmp, "capture_setup.py");
	if (!os_mkdir_p(d, src) || !os_mkdir_p(d, home) || !os_mkdir_p(d, ttmp) ||
	    !os_write_atomic(d, script, capture_setup_py, capture_setup_py_len, 0644) ||
	    !copy_project(a, d, o, src))
		goto done;
	const char *why = NULL;
	int status = 0;
	if (!run_recorder(a, d, o, tmp, capture_env(a, o, home, ttmp), &output, &why, &status))
		goto done;
	const char *shown = "setup.py";
	const char *tail = tail_text(a, &output);
	if (why) {
		diag_path(d, DIAG_ERROR, shown, "the capture stopped setup.py: %s", why);
		tell_tail_and_hint(d, tail);
		goto done;
	}
	struct source rec;
	if (!os_exists(json) || !os_read_file(a, &quiet, json, &rec)) {
		diag_path(d, DIAG_ERROR, shown,
		          "the capture's Python (%s) wrote no record (exit status %d)", o->python,
		          status);
		tell_tail_and_hint(d, tail);
		goto done;
	}
	ok = capture_read(a, d, shown, rec.text, rec.len, tail, out);
	/* Kept only when it is an answer: a failure runs again. */
	if (ok && cache && os_mkdir_p(&quiet, o->cache_dir))
		(void)os_write_atomic(&quiet, cache, rec.text, rec.len, 0644);
done:
	sb_release(&output);
	ok &= os_rm_rf(d, tmp);
	os_tmp_forget(tmp);
	return ok;
}
