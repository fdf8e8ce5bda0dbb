/* discover_python.c: finds the Python interpreters of this machine (the explicit table, PATH
 * and its pyenv shims, pyenv, manylinux's /opt/python, uv), probes them and keeps one per
 * (version, abiflags, torch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/os-file.h"
#include "toolchain/discover_internal.h"
#include "toolchain/probe.h"
#include "toolchain/provision_python.h"

struct pycand {
	const char *path; /* as found */
	const char *real; /* resolved, for de-duplication */
	const char *found_by;
	const char *want; /* explicit table: the version the user wrote */
};

/* Adds an interpreter to probe, unless it is not executable or the same file was seen. */
static void cand_add(struct disc *x, const char *where, const char *path, const char *found_by,
                     const char *want)
{
	bool warn = strcmp(found_by, "explicit") == 0;
	if (!os_is_exec(path)) {
		disc_looked_add(x, "python", where, "%s is not an executable file", path);
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
			disc_looked_add(x, "python", where, "same file as %s", x->cands[i].path);
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
			disc_looked_add(x, "python", shim, "pyenv shim for %s", p);
			cand_add(x, p, p, "PATH", NULL);
			return;
		}
	}
	disc_looked_add(
	    x, "python", shim,
	    "pyenv shim, but no active pyenv version has %s (pyenv's versions are searched "
	    "directly)",
	    name);
}

static void find_path_pythons(struct disc *x)
{
	const char *path = env_nonempty(x->req->env, "PATH");
	if (!path) {
		disc_looked_add(x, "python", "PATH", "not set");
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
		if (!disc_list_dir(x->a, dir, &names))
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
		disc_looked_add(x, "python", "PATH", "no python3.X on PATH");
}

/* Adds dir/<each>/<bin> for every entry of dir, bin being the first of bins that exists. */
static void find_tree_pythons(struct disc *x, const char *dir, const char *const *bins,
                              const char *found_by)
{
	struct strv names = {0};
	if (!dir)
		return;
	if (!disc_list_dir(x->a, dir, &names)) {
		disc_looked_add(x, "python", dir, "not a directory");
		return;
	}
	if (!names.n)
		disc_looked_add(x, "python", dir, "empty");
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
			disc_looked_add(
			    x, "python", d,
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
			disc_looked_add(x, "python", d, "no %s", bins[0]);
	}
}

/* The Pythons `cuwheel python install` put in <cache>/pythons/<release>/usr/bin/python3.X; a
 * root without its marker (an install killed midway) is not used. */
static void find_cache_pythons(struct disc *x)
{
	const char *dir = os_join(x->a, cuwheel_cache_dir(x->a, x->req->env), "pythons");
	struct strv names = {0};
	if (!disc_list_dir(x->a, dir, &names)) {
		disc_looked_add(x, "python", dir,
		                "not a directory (no Python provisioned by cuwheel)");
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *root = os_join(x->a, dir, names.v[i]);
		if (names.v[i][0] == '.' || !os_is_dir(root))
			continue;
		if (!os_exists(os_join(x->a, root, PYTHON_MARKER))) {
			disc_looked_add(x, "python", root, "incomplete: no %s, ignored",
			                PYTHON_MARKER);
			continue;
		}
		const char *bin = os_join(x->a, root, "usr/bin");
		struct strv exes = {0};
		size_t found = 0;
		if (disc_list_dir(x->a, bin, &exes))
			for (size_t k = 0; k < exes.n; k++)
				if (is_python3x_name(exes.v[k])) {
					const char *p = os_join(x->a, bin, exes.v[k]);
					cand_add(x, p, p, "cuwheel", NULL);
					found++;
				}
		if (!found)
			disc_looked_add(x, "python", bin, "no python3.X");
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
		         disc_explicit_path(x, t->v[i].value), "explicit", t->v[i].key);
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
	find_cache_pythons(x);
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

/* An activated venv's interpreter comes first on PATH, so it would build every cell of its
 * version without the user having chosen it: say so, and how to choose. */
static void warn_active_venv(struct disc *x, const struct pycand *c, const struct interp *ip)
{
	const char *venv = env_nonempty(x->req->env, "VIRTUAL_ENV");
	size_t n = venv ? strlen(venv) : 0;
	if (!n || strcmp(c->found_by, "PATH") || strncmp(c->path, venv, n) || c->path[n] != '/')
		return;
	diag_path(x->d, DIAG_WARNING, c->path,
	          "the activated venv's interpreter (VIRTUAL_ENV=%s) builds the Python %s cells "
	          "because it comes first on PATH",
	          venv, interp_key(x->a, ip));
	diag_msg(x->d, DIAG_HINT,
	         "to choose, name the interpreter in [tool.cuwheel.pythons] or CUWHEEL_PYTHONS "
	         "(\"%s=/path/bin/python\"), or deactivate the venv",
	         interp_key(x->a, ip));
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
			disc_looked_add(x, "python", c->path, "%s", why);
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
			disc_looked_add(
			    x, "python", c->path, "duplicate of %s (Python %s%s%s, %s)", dup->path,
			    dup->version, dup->torch.present ? ", torch " : "",
			    dup->torch.present ? dup->torch.version : "", dup->found_by);
			continue;
		}
		ip->path = c->path;
		ip->found_by = c->found_by;
		ip->order = i;
		ds->pythons[ds->n_pythons++] = *ip;
		warn_active_venv(x, c, ip);
		const struct torch_info *ti = &ip->torch;
		disc_looked_add(x, "python", c->path, "found %s%s%s%s", ip->version,
		                ti->present ? ", torch " : "", ti->present ? ti->version : "",
		                jobs[i].cached ? " (cached probe)" : "");
	}
	if (ds->n_pythons)
		qsort(ds->pythons, ds->n_pythons, sizeof(*ds->pythons), cmp_interp);
}

void disc_find_pythons(struct disc *x, bool torch, bool torch_files, int jobs_max)
{
	find_candidates(x);
	struct probe_job *jobs = arena_calloc(x->a, x->n_cands ? x->n_cands : 1, sizeof(*jobs));
	for (size_t i = 0; i < x->n_cands; i++)
		jobs[i] = (struct probe_job){
		    .path = x->cands[i].path, .torch = torch, .torch_files = torch_files};
	probe_run(x->a, x->d, x->cache_dir, jobs, x->n_cands, jobs_max, x->timeout_s);
	accept_pythons(x, jobs);
}
