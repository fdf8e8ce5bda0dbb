/* provision_python.c: CPython from Debian's binary packages in a private root under
 * <cache>/pythons/<version>: sid's python3.X needs glibc >= 2.38, so the root also holds sid's
 * libc6 and the libraries the interpreter and its stdlib load, and the interpreter is pointed
 * at them (its ELF interpreter and a DT_RPATH, which the stdlib's extension modules use too).
 * The .debs come through the Debian source's private apt configuration (provision_debian.c),
 * the install/list/remove bookkeeping is the toolkits' (provision.c). */
#include "toolchain/provision_python.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-run.h"
#include "base/strbuf.h"
#include "standards/version.h"
#include "toolchain/provision_internal.h"

/* The dynamic loader and the libraries of sid's libc6 and friends, inside the root. */
#define ROOT_LIBDIR "usr/lib/x86_64-linux-gnu"
#define ROOT_LDSO   ROOT_LIBDIR "/ld-linux-x86-64.so.2"
/* Debian's own wheel directory; its sysconfig names it for ensurepip. */
#define DEBIAN_WHEELS "/usr/share/python-wheels/"

const char *python_lock_path(struct arena *a, const char *const *env)
{
	return provision_lock_file(a, env, "CUWHEEL_PYTHON_LOCK", "pythons.lock.json");
}

static int set_cmp(const void *x, const void *y)
{
	return version_dotted_cmp(((const struct provision_set *)x)->version,
	                          ((const struct provision_set *)y)->version);
}

/* True when the set pins a package of that name. */
static bool pins(const struct provision_set *s, const char *name)
{
	for (size_t i = 0; i < s->n_pkgs; i++)
		if (strcmp(s->pkgs[i].name, name) == 0)
			return true;
	return false;
}

bool python_lock_parse(struct arena *a, struct diag *d, const char *path, const char *text,
                       struct python_lock *out)
{
	memset(out, 0, sizeof(*out));
	out->path = arena_strdup(a, path);
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	if (!root) {
		diag_path(d, DIAG_ERROR, path, "cannot read the Python lock file: %s (line %d)",
		          err.text, err.line);
		return false;
	}
	bool ok = false;
	json_t *schema = json_object_get(root, "schema");
	json_t *sets = json_object_get(root, "pythons");
	struct provision_set origin = {0};
	if (!json_is_integer(schema) || json_integer_value(schema) != 1) {
		diag_path(d, DIAG_ERROR, path, "not a schema 1 Python lock file");
		goto done;
	}
	if (!provision_debian_origin(a, provision_jstr(root, "uri"),
	                             provision_jstr(root, "keyring"), provision_jstr(root, "suite"),
	                             provision_jstr(root, "components"), &origin) ||
	    !json_is_array(sets) || json_array_size(sets) == 0) {
		diag_path(d, DIAG_ERROR, path,
		          "a Python lock needs an http(s) \"uri\", an absolute \"keyring\", a "
		          "\"suite\", \"components\" and a non-empty \"pythons\" array");
		goto done;
	}
	const char *gen = provision_jstr(root, "generated");
	out->generated = arena_strdup(a, gen ? gen : "unknown");
	const char *ft = provision_jstr(root, "freethreaded");
	out->freethreaded = ft ? arena_strdup(a, ft) : NULL;
	out->n_sets = json_array_size(sets);
	out->sets = arena_calloc(a, out->n_sets, sizeof(*out->sets));
	for (size_t i = 0; i < out->n_sets; i++) {
		json_t *t = json_array_get(sets, i);
		struct provision_set *s = &out->sets[i];
		*s = origin;
		json_t *pkgs = json_object_get(t, "packages");
		const char *minor = provision_jstr(t, "minor");
		if (!provision_set_version(a, s, provision_jstr(t, "version")) || s->major != 3 ||
		    (minor && strcmp(minor, s->minor) != 0) || !json_is_array(pkgs) ||
		    json_array_size(pkgs) == 0) {
			diag_path(
			    d, DIAG_ERROR, path,
			    "pythons[%zu]: needs a \"version\" 3.MINOR.PATCH (and a \"minor\" "
			    "that agrees with it) and a non-empty \"packages\" array",
			    i);
			goto done;
		}
		if (!provision_set_pkgs(a, d, path, "pythons", i, pkgs, true, s))
			goto done;
		/* What python_install cannot do without: the interpreter, the C library it needs,
		 * the headers and pip. */
		const char *need[] = {arena_printf(a, "python%s-minimal", s->minor),
		                      arena_printf(a, "libpython%s-dev", s->minor), "libc6",
		                      "python3-pip-whl"};
		for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
			if (!pins(s, need[k])) {
				diag_path(d, DIAG_ERROR, path,
				          "pythons[%zu]: Python %s pins no %s, which a root needs",
				          i, s->version, need[k]);
				goto done;
			}
		for (size_t k = 0; k < i; k++)
			if (strcmp(out->sets[k].version, s->version) == 0) {
				diag_path(d, DIAG_ERROR, path,
				          "pythons[%zu]: Python %s is pinned twice (pythons[%zu])",
				          i, s->version, k);
				goto done;
			}
	}
	qsort(out->sets, out->n_sets, sizeof(*out->sets), set_cmp);
	ok = true;
done:
	json_decref(root);
	return ok;
}

bool python_lock_load(struct arena *a, struct diag *d, const char *path, struct python_lock *out)
{
	struct source src;
	if (!os_read_file(a, d, path, &src))
		return false;
	return python_lock_parse(a, d, path, src.text, out);
}

/* "3.14 and 3.15" of what the lock pins. */
static const char *pinned_minors(struct arena *a, const struct python_lock *l)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < l->n_sets; i++)
		sb_printf(&sb, "%s%s (%s)",
		          i == 0               ? ""
		          : i + 1 == l->n_sets ? " and "
		                               : ", ",
		          l->sets[i].minor, l->sets[i].version);
	return sb_to_arena(&sb, a);
}

const struct provision_set *python_resolve(struct arena *a, struct diag *d,
                                           const struct python_lock *l, const char *version)
{
	size_t len = strlen(version);
	long parts[3];
	bool ft = len > 1 && version[len - 1] == 't';
	char *base = arena_strndup(a, version, ft ? len - 1 : len);
	int n = version_dotted_parts(base, parts, 3);
	if (n < 2 || parts[0] != 3) {
		diag_msg(d, DIAG_ERROR,
		         "'%s' is not a Python version (3.MINOR or 3.MINOR.PATCH, e.g. 3.14 or "
		         "3.14.10)",
		         version);
		return NULL;
	}
	if (ft) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision Python %s: %s; %s pins only the default build of Python "
		         "%s",
		         version,
		         l->freethreaded ? l->freethreaded
		                         : "the lock pins no free-threaded CPython",
		         l->path, pinned_minors(a, l));
		diag_msg(d, DIAG_HINT,
		         "a free-threaded interpreter found on this machine (pyenv, uv, "
		         "[tool.cuwheel.pythons]) builds the %s cells",
		         version);
		return NULL;
	}
	char *minor = arena_printf(a, "%ld.%ld", parts[0], parts[1]);
	const struct provision_set *best = NULL;
	for (size_t i = 0; i < l->n_sets; i++) {
		const struct provision_set *s = &l->sets[i];
		if (strcmp(s->minor, minor) != 0)
			continue;
		if (n == 3 ? version_dotted_cmp(s->version, version) == 0
		           : (!best || version_dotted_cmp(s->version, best->version) > 0))
			best = s;
	}
	if (best)
		return best;
	diag_msg(d, DIAG_ERROR, "cannot provision Python %s: %s pins Python %s only", version,
	         l->path, pinned_minors(a, l));
	diag_msg(d, DIAG_HINT,
	         "cuwheel provisions the CPythons Debian %s has that older machines lack; for "
	         "others use pyenv or uv, or regenerate the lock with tools/update-python-lock %s",
	         l->n_sets ? l->sets[0].suite : "sid", minor);
	return NULL;
}

const char *python_exe(struct arena *a, const char *root, const char *minor)
{
	return arena_printf(a, "%s/usr/bin/python%s", root, minor);
}

/* Runs argv capturing its output; false + an error naming what (with the output's tail) when
 * it cannot start or exits non-zero. *said gets the output when said is not NULL. */
static bool run_checked(struct arena *a, struct diag *d, const char *const *argv, const char *what,
                        const char **said)
{
	struct os_run r = {.argv = argv, .capture = true, .timeout_s = 600};
	struct strbuf out = {0};
	int status;
	bool ok = os_run(d, &r, &out, &status);
	if (ok && status != 0) {
		const char *t = sb_str(&out);
		size_t len = strlen(t);
		diag_msg(d, DIAG_ERROR, "%s failed (exit %d): %s", what, status,
		         os_argv_str(a, argv));
		diag_msg(d, DIAG_NOTE, "it said:\n%s", len > 2000 ? t + len - 2000 : t);
		ok = false;
	}
	if (ok && said)
		*said = arena_strdup(a, sb_str(&out));
	sb_release(&out);
	return ok;
}

/* The root's path goes into the interpreter's DT_RPATH (':' separates, '$' expands) and into
 * a Python string literal of its sysconfig data: it is held to characters neither reads. */
static bool root_path_ok(struct diag *d, const char *root)
{
	for (const unsigned char *c = (const unsigned char *)root; *c; c++)
		if (*c < 0x20 || *c == 0x7f || strchr(":$'\"\\", *c)) {
			diag_path(
			    d, DIAG_ERROR, root,
			    "cannot provision a Python here: the path holds '%c' (or a control "
			    "character), which an ELF rpath or Python's sysconfig data cannot "
			    "carry",
			    *c >= 0x20 && *c != 0x7f ? *c : '?');
			diag_msg(d, DIAG_HINT, "set CUWHEEL_CACHE_DIR to a plainer directory");
			return false;
		}
	return true;
}

/* Makes <root>/usr/include/python3.X/pyconfig.h the real one: Debian's is a wrapper that
 * includes <x86_64-linux-gnu/python3.X/pyconfig.h>, found only with -I <root>/usr/include. */
static bool flatten_pyconfig(struct arena *a, struct diag *d, const char *staging,
                             const struct provision_set *s)
{
	char *inc = arena_printf(a, "%s/usr/include/python%s", staging, s->minor);
	char *arch = arena_printf(a, "%s/usr/include/x86_64-linux-gnu/python%s/pyconfig.h", staging,
	                          s->minor);
	struct source src;
	if (!os_exists(os_join(a, inc, "Python.h")) || !os_exists(arch)) {
		diag_msg(d, DIAG_ERROR,
		         "cannot assemble Python %s: libpython%s-dev brought no %s/Python.h or no "
		         "%s",
		         s->version, s->minor, inc, arch);
		return false;
	}
	if (!os_read_file(a, d, arch, &src))
		return false;
	return os_write_atomic(d, os_join(a, inc, "pyconfig.h"), src.text, src.len, 0644);
}

/* Points ensurepip (venv's pip) at the root's wheels: Debian's sysconfig data names
 * /usr/share/python-wheels, which on another system holds that system's, older pip. */
static bool own_wheel_dir(struct arena *a, struct diag *d, const char *staging, const char *root,
                          const struct provision_set *s)
{
	char *lib = arena_printf(a, "%s/usr/lib/python%s", staging, s->minor);
	struct strv ents = {0};
	if (!os_list_dir(a, lib, &ents)) {
		diag_errno(d, lib, "cannot list");
		return false;
	}
	static const char from[] = "'WHEEL_PKG_DIR': '" DEBIAN_WHEELS "'";
	char *to = arena_printf(a, "'WHEEL_PKG_DIR': '%s/usr/share/python-wheels/'", root);
	size_t patched = 0;
	for (size_t i = 0; i < ents.n; i++) {
		const char *n = ents.v[i];
		size_t len = strlen(n);
		struct os_stat st;
		char *p = os_join(a, lib, n);
		if (strncmp(n, "_sysconfigdata_", 15) != 0 || len < 3 ||
		    strcmp(n + len - 3, ".py") || !os_lstat(p, &st) || st.kind != OS_KIND_FILE)
			continue; /* Debian links the other name to the real one */
		struct source src;
		if (!os_read_file(a, d, p, &src))
			return false;
		const char *at = strstr(src.text, from);
		if (!at)
			continue;
		struct strbuf sb = {0};
		sb_printf(&sb, "%.*s%s%s", (int)(at - src.text), src.text, to, at + strlen(from));
		bool ok = os_write_atomic(d, p, sb_str(&sb), strlen(sb_str(&sb)), 0644);
		sb_release(&sb);
		if (!ok)
			return false;
		patched++;
	}
	if (!patched) {
		diag_path(
		    d, DIAG_ERROR, lib,
		    "cannot assemble Python %s: no _sysconfigdata_*.py names WHEEL_PKG_DIR %s, "
		    "so venv's ensurepip would not find the root's pip",
		    s->version, DEBIAN_WHEELS);
		return false;
	}
	return true;
}

/* Returns <root>/usr/share/python-wheels/pip-*.whl, or NULL + diagnostic. */
static const char *pip_wheel(struct arena *a, struct diag *d, const char *root,
                             const struct provision_set *s)
{
	char *dir = os_join(a, root, "usr/share/python-wheels");
	struct strv ents = {0};
	if (os_list_dir(a, dir, &ents))
		for (size_t i = 0; i < ents.n; i++) {
			size_t len = strlen(ents.v[i]);
			if (!strncmp(ents.v[i], "pip-", 4) && len > 4 &&
			    !strcmp(ents.v[i] + len - 4, ".whl"))
				return os_join(a, dir, ents.v[i]);
		}
	diag_path(d, DIAG_ERROR, dir,
	          "cannot assemble Python %s: python3-pip-whl brought no pip wheel", s->version);
	return NULL;
}

/* Unpacks every .deb into staging and makes the tree a root (everything that needs no running
 * interpreter; the paths written are those of root, where it will be renamed). */
static bool assemble(struct arena *a, struct diag *d, const struct provision_opts *o,
                     const struct provision_set *s, const char *staging, const char *root)
{
	struct provision_deb_for f = {
	    .what = arena_printf(a, "Python %s", s->version),
	    .lock = "the Python lock",
	    .regen = "tools/update-python-lock",
	    .elsewhere =
	        arena_printf(a,
	                     "run on a Debian or Ubuntu machine, or install Python %s with "
	                     "pyenv or uv (discovery finds it)",
	                     s->minor),
	};
	if (!os_which(a, o->env, "patchelf")) {
		diag_msg(
		    d, DIAG_ERROR,
		    "cannot provision Python %s: patchelf is not on PATH (Debian's patchelf "
		    "package; tools/install-deps installs it): the interpreter must be pointed at "
		    "the root's own C library",
		    s->version);
		return false;
	}
	const char **files;
	if (!provision_debian_fetch(a, d, o, s, &f, &files))
		return false;
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const char *argv[] = {"dpkg-deb", "-x", files[i], staging, NULL};
		if (!run_checked(
		        a, d, argv,
		        arena_printf(a, "unpacking %s %s", s->pkgs[i].name, s->pkgs[i].version),
		        NULL))
			return false;
	}
	const char *exe = python_exe(a, staging, s->minor);
	char *ldso = os_join(a, staging, ROOT_LDSO);
	if (!os_is_exec(exe) || !os_exists(ldso)) {
		diag_msg(
		    d, DIAG_ERROR,
		    "cannot assemble Python %s: %s (python%s-minimal) or %s (libc6) is missing",
		    s->version, exe, s->minor, ldso);
		return false;
	}
	const char *argv[] = {"patchelf",
	                      "--set-interpreter",
	                      os_join(a, root, ROOT_LDSO),
	                      "--force-rpath",
	                      "--set-rpath",
	                      os_join(a, root, ROOT_LIBDIR),
	                      exe,
	                      NULL};
	return run_checked(a, d, argv, "pointing the interpreter at the root's C library", NULL) &&
	       flatten_pyconfig(a, d, staging, s) && own_wheel_dir(a, d, staging, root, s);
}

/* With the root in place: the base interpreter's pip (the test venvs' pip installs with
 * `python -m pip --python VENV`), then the checks that it is whole. */
static bool finish(struct arena *a, struct diag *d, const char *dir, const char *root,
                   const struct provision_set *s)
{
	const char *py = python_exe(a, root, s->minor);
	const char *whl = pip_wheel(a, d, root, s);
	if (!whl)
		return false;
	/* A wheel is a zip of files laid out for site-packages: pip's own goes into the root's
	 * dist-packages, which is on the interpreter's sys.path. */
	const char *unzip[] = {
	    py,   "-I",
	    "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
	    whl,  os_join(a, root, "usr/lib/python3/dist-packages"),
	    NULL};
	if (!run_checked(a, d, unzip, arena_printf(a, "installing pip into Python %s", s->version),
	                 NULL))
		return false;
	const char *said = NULL;
	const char *check[] = {py, "-I", "-c",
	                       "import sys, ssl, sqlite3, ctypes, decimal, lzma, bz2, zlib, venv, "
	                       "ensurepip, sysconfig, pip\n"
	                       "print('%d.%d.%d' % sys.version_info[:3])",
	                       NULL};
	if (!run_checked(a, d, check,
	                 arena_printf(a, "running the assembled Python %s", s->version), &said))
		return false;
	if (strncmp(said, s->version, strlen(s->version)) != 0 ||
	    said[strlen(s->version)] != '\n') {
		diag_path(d, DIAG_ERROR, py,
		          "the assembled interpreter reports %s, the lock pins %s", said,
		          s->version);
		return false;
	}
	/* venv with its own pip (ensurepip from the root's wheel), as a user makes one. */
	char *venv = arena_printf(a, "%s/.tmp-venv-%s-%ld", dir, s->version, (long)getpid());
	const char *mk[] = {py, "-m", "venv", venv, NULL};
	const char *vpy = os_join(a, venv, "bin/python");
	const char *pipv[] = {vpy, "-m", "pip", "--version", NULL};
	bool ok = run_checked(a, d, mk, arena_printf(a, "making a venv of Python %s", s->version),
	                      NULL) &&
	          run_checked(a, d, pipv, "running pip in that venv", NULL);
	os_rm_rf(d, venv);
	return ok;
}

enum provision_result python_install(struct arena *a, struct diag *d,
                                     const struct provision_opts *o, const struct provision_set *s,
                                     const char **root)
{
#if !defined(__linux__) || !defined(__x86_64__)
	diag_msg(d, DIAG_ERROR,
	         "cannot provision Python %s: the lock file pins Debian's amd64 packages only",
	         s->version);
	return PROVISION_FAILED;
#endif
	char *dir = provision_cache_subdir(a, d, o->cache_dir, "pythons");
	if (!dir)
		return PROVISION_FAILED;
	char *final = os_join(a, dir, s->version);
	*root = final;
	if (!root_path_ok(d, final))
		return PROVISION_FAILED;
	int lock = provision_lock_dir(a, d, dir, "python");
	if (lock < 0)
		return PROVISION_FAILED;
	enum provision_result res = PROVISION_FAILED;
	if (os_exists(os_join(a, final, PYTHON_MARKER))) {
		res = PROVISION_ALREADY;
		goto out;
	}
	provision_remove_stale(a, d, dir);
	/* A root without the marker was never finished (an install killed after the rename). */
	if (os_exists(final) && !provision_set_aside(a, d, dir, s->version, final))
		goto out;
	char *staging = arena_printf(a, "%s/.tmp-%s-%ld", dir, s->version, (long)getpid());
	if (!os_mkdir_p(d, staging))
		goto out;
	if (!assemble(a, d, o, s, staging, final)) {
		os_rm_rf(d, staging);
		goto out;
	}
	if (!provision_move_into_place(d, dir, staging, final, "cannot move the Python into place"))
		goto out;
	/* The interpreter runs only from where its ELF interpreter and rpath point: it is checked
	 * in place, and the marker written only once it passed. */
	if (!finish(a, d, dir, final, s) ||
	    !provision_write_marker(a, d, final, PYTHON_MARKER, s,
	                            arena_printf(a, "debian %s", s->suite))) {
		char *trash = arena_printf(a, "%s/.trash-%s-%ld", dir, s->version, (long)getpid());
		if (os_rename(final, trash))
			os_rm_rf(d, trash);
		goto out;
	}
	os_fsync_dir(final);
	/* The .debs were kept only so an interrupted install need not fetch them again. */
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const char *base = strrchr(s->pkgs[i].filename, '/');
		base = base ? base + 1 : s->pkgs[i].filename;
		struct diag quiet = {0};
		os_rm_rf(&quiet, arena_printf(a, "%s/debian/debs/%s", o->cache_dir, base));
	}
	res = PROVISION_INSTALLED;
out:
	close(lock);
	return res;
}

bool python_list(struct arena *a, struct diag *d, const char *cache_dir,
                 struct provision_installed **out, size_t *n)
{
	return provision_list_in(a, d, os_join(a, cache_dir, "pythons"), PYTHON_MARKER, out, n);
}

bool python_remove(struct arena *a, struct diag *d, const char *cache_dir, const char *version,
                   const char **removed)
{
	return provision_remove_in(a, d, os_join(a, cache_dir, "pythons"), PYTHON_MARKER, "Python",
	                           version, removed);
}
