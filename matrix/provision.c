/* provision.c: assembles CUDA toolkits from NVIDIA's pinned PyPI wheels into cuwheel's cache. */
#include "matrix/provision.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/os.h"
#include "base/strbuf.h"
#include "packager/wheel_read.h"

/* What `nvcc -c` and `nvcc -shared -cudart static` need, relative to the toolkit's root, and
 * the wheel that brings each. */
static const struct {
	const char *path;
	const char *package;
	bool exec;
} provision_required[] = {
    {"bin/nvcc", "nvidia-cuda-nvcc", true},
    {"bin/nvcc.profile", "nvidia-cuda-nvcc", false},
    {"bin/cudafe++", "nvidia-cuda-nvcc", true},
    {"bin/ptxas", "nvidia-cuda-nvcc", true},
    {"bin/fatbinary", "nvidia-cuda-nvcc", true},
    {"bin/nvlink", "nvidia-cuda-nvcc", true},
    {"bin/crt/link.stub", "nvidia-cuda-nvcc", false},
    {"nvvm/bin/cicc", "nvidia-nvvm", true},
    {"nvvm/libdevice/libdevice.10.bc", "nvidia-nvvm", false},
    {"include/crt/host_config.h", "nvidia-cuda-crt", false},
    {"include/cuda_runtime.h", "nvidia-cuda-runtime", false},
    {"lib64/libcudart_static.a", "nvidia-cuda-runtime", false},
    {"lib64/libcudadevrt.a", "nvidia-cuda-runtime", false},
    {"include/cccl/cuda/std/version", "nvidia-cuda-cccl", false},
    {"include/cccl/thrust/version.h", "nvidia-cuda-cccl", false},
    {"include/cccl/cub/version.cuh", "nvidia-cuda-cccl", false},
};

static const char *env_get(const char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* Parses "13", "13.1" or "13.1.80" into parts; returns how many (0 when malformed). */
static int version_parts(const char *v, long parts[], int max)
{
	int n = 0;
	const char *p = v;
	while (n < max) {
		if (!isdigit((unsigned char)*p))
			return 0;
		char *end;
		parts[n++] = strtol(p, &end, 10);
		p = end;
		if (*p == '\0')
			return n;
		if (*p != '.')
			return 0;
		p++;
	}
	return 0;
}

/* Compares dotted numeric versions. */
static int version_cmp(const char *x, const char *y)
{
	long a[8] = {0}, b[8] = {0};
	int na = version_parts(x, a, 8), nb = version_parts(y, b, 8);
	for (int i = 0; i < 8 && (i < na || i < nb); i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* True when v is "MAJOR.MINOR.x..." of the given minor ("13.1"). */
static bool version_in_minor(const char *v, const char *minor)
{
	size_t n = strlen(minor);
	return strncmp(v, minor, n) == 0 && v[n] == '.';
}

/* Joins words as "a, b and c" (conj "and") for messages. */
static char *join_words(struct arena *a, const struct strv *w, const char *conj)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < w->n; i++) {
		if (i)
			sb_puts(&sb, i + 1 == w->n ? conj : ", ");
		sb_puts(&sb, w->v[i]);
	}
	return w->n ? sb_to_arena(&sb, a) : arena_strdup(a, "");
}

const char *provision_lock_path(struct arena *a, const char *const *env)
{
	const char *p = env_get(env, "CUWHEEL_TOOLKIT_LOCK");
	if (p && *p)
		return p;
	/* The lock file is committed beside this source; a binary built from a checkout finds it
	 * there. An installed binary looks in ../share/cuwheel of its own directory. */
	const char *self = __FILE__;
	const char *slash = strrchr(self, '/');
	if (self[0] == '/' && slash) {
		char *cand = arena_printf(a, "%.*s/toolkits.lock.json", (int)(slash - self), self);
		if (os_exists(cand))
			return cand;
	}
	char *exe = os_self_exe(a);
	if (exe && (slash = strrchr(exe, '/'))) {
		char *cand = arena_printf(a, "%.*s/../share/cuwheel/toolkits.lock.json",
		                          (int)(slash - exe), exe);
		if (os_exists(cand))
			return cand;
	}
	return NULL;
}

static bool is_token(const char *s, const char *allowed)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(allowed, *s))
			return false;
	return true;
}

static bool is_sha256(const char *s)
{
	if (!s || strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return false;
	return true;
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Reads one {name, version, filename, sha256, size}; the strings end up in a pip requirements
 * file, so they are held to the characters such names have. */
static bool pkg_from_json(struct arena *a, json_t *o, struct provision_pkg *p)
{
	const char *name = jstr(o, "name"), *ver = jstr(o, "version");
	const char *file = jstr(o, "filename"), *sha = jstr(o, "sha256");
	if (!is_token(name, "-_.") || !is_token(ver, ".") || !is_token(file, "-_.") ||
	    !is_sha256(sha))
		return false;
	json_t *size = json_object_get(o, "size");
	p->name = arena_strdup(a, name);
	p->version = arena_strdup(a, ver);
	p->filename = arena_strdup(a, file);
	p->sha256 = arena_strdup(a, sha);
	p->size = json_is_integer(size) ? (int64_t)json_integer_value(size) : -1;
	return true;
}

static void strv_from_json(struct arena *a, json_t *arr, struct strv *out)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (json_is_string(v))
			strv_push(a, out, arena_strdup(a, json_string_value(v)));
	}
}

bool provision_lock_load(struct arena *a, struct diag *d, const char *path,
                         struct provision_lock *out)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		diag_path(d, DIAG_ERROR, path, "cannot read the toolkit lock file: %s (line %d)",
		          err.text, err.line);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->path = arena_strdup(a, path);
	bool ok = false;
	json_t *schema = json_object_get(root, "schema");
	json_t *sets = json_object_get(root, "toolkits");
	json_t *gaps = json_object_get(root, "unassemblable");
	if (!json_is_integer(schema) || json_integer_value(schema) != 1) {
		diag_path(d, DIAG_ERROR, path, "not a schema 1 toolkit lock file");
		goto done;
	}
	if (!json_is_array(sets)) {
		diag_path(d, DIAG_ERROR, path, "\"toolkits\" must be an array");
		goto done;
	}
	const char *gen = jstr(root, "generated");
	out->generated = arena_strdup(a, gen ? gen : "unknown");
	out->n_sets = json_array_size(sets);
	out->sets = arena_calloc(a, out->n_sets, sizeof(*out->sets));
	for (size_t i = 0; i < out->n_sets; i++) {
		json_t *t = json_array_get(sets, i);
		struct provision_set *s = &out->sets[i];
		const char *ver = jstr(t, "version");
		json_t *pkgs = json_object_get(t, "packages");
		long parts[3];
		if (!ver || version_parts(ver, parts, 3) != 3 || !json_is_array(pkgs) ||
		    json_array_size(pkgs) == 0) {
			diag_path(d, DIAG_ERROR, path,
			          "toolkits[%zu]: needs a MAJOR.MINOR.PATCH "
			          "\"version\" and a non-empty \"packages\" array",
			          i);
			goto done;
		}
		s->version = arena_strdup(a, ver);
		s->major = (int)parts[0];
		s->minor_n = (int)parts[1];
		s->minor = arena_printf(a, "%ld.%ld", parts[0], parts[1]);
		s->n_pkgs = json_array_size(pkgs);
		s->pkgs = arena_calloc(a, s->n_pkgs, sizeof(*s->pkgs));
		for (size_t j = 0; j < s->n_pkgs; j++) {
			if (!pkg_from_json(a, json_array_get(pkgs, j), &s->pkgs[j])) {
				diag_path(d, DIAG_ERROR, path,
				          "toolkits[%zu].packages[%zu]: needs "
				          "name, version, filename and a sha256 of 64 hex digits",
				          i, j);
				goto done;
			}
		}
	}
	out->n_gaps = json_is_array(gaps) ? json_array_size(gaps) : 0;
	out->gaps = arena_calloc(a, out->n_gaps ? out->n_gaps : 1, sizeof(*out->gaps));
	for (size_t i = 0; i < out->n_gaps; i++) {
		json_t *g = json_array_get(gaps, i);
		struct provision_gap *gp = &out->gaps[i];
		const char *minor = jstr(g, "minor"), *pkg = jstr(g, "package");
		const char *ver = jstr(g, "version");
		if (!minor || !pkg || !ver) {
			diag_path(d, DIAG_ERROR, path,
			          "unassemblable[%zu]: needs minor, package and "
			          "version",
			          i);
			goto done;
		}
		gp->minor = arena_strdup(a, minor);
		gp->package = arena_strdup(a, pkg);
		gp->version = arena_strdup(a, ver);
		strv_from_json(a, json_object_get(g, "has"), &gp->has);
		strv_from_json(a, json_object_get(g, "lacks"), &gp->lacks);
	}
	ok = true;
done:
	json_decref(root);
	return ok;
}

/* The message for a minor whose packages lack the compiler: what they hold and what not. */
static void report_gap(struct arena *a, struct diag *d, const char *version,
                       const struct provision_gap *g)
{
	diag_msg(d, DIAG_ERROR,
	         "cannot provision CUDA %s: PyPI's CUDA %s packages carry no nvcc (%s %s ships "
	         "only %s, not %s)",
	         version, g->minor, g->package, g->version, join_words(a, &g->has, " and "),
	         join_words(a, &g->lacks, " or "));
	diag_msg(d, DIAG_HINT,
	         "install CUDA %s from NVIDIA's repository and point [tool.cuwheel.toolkits] at it",
	         g->minor);
}

const struct provision_set *provision_resolve(struct arena *a, struct diag *d,
                                              const struct provision_lock *l, const char *version)
{
	long parts[3];
	int n = version_parts(version, parts, 3);
	if (n < 2) {
		diag_msg(d, DIAG_ERROR,
		         "'%s' is not a CUDA version (MAJOR.MINOR or "
		         "MAJOR.MINOR.PATCH, e.g. 13.1 or 13.1.80)",
		         version);
		return NULL;
	}
	char *minor = arena_printf(a, "%ld.%ld", parts[0], parts[1]);
	const struct provision_set *best = NULL;
	struct strv same_minor = {0}, minors = {0};
	for (size_t i = 0; i < l->n_sets; i++) {
		const struct provision_set *s = &l->sets[i];
		if (!strv_contains(&minors, s->minor))
			strv_push(a, &minors, s->minor);
		if (strcmp(s->minor, minor) != 0)
			continue;
		strv_push(a, &same_minor, s->version);
		if (n == 3 ? version_cmp(s->version, version) == 0
		           : (!best || version_cmp(s->version, best->version) > 0))
			best = s;
	}
	if (best)
		return best;
	if (same_minor.n) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision CUDA %s: the lock file pins CUDA %s only "
		         "as %s",
		         version, minor, join_words(a, &same_minor, " and "));
		diag_msg(d, DIAG_HINT,
		         "use 'cuwheel toolkit install %s' for the newest, or "
		         "regenerate %s with ci/update-toolkit-lock",
		         minor, l->path);
		return NULL;
	}
	for (size_t i = 0; i < l->n_gaps; i++)
		if (strcmp(l->gaps[i].minor, minor) == 0) {
			report_gap(a, d, version, &l->gaps[i]);
			return NULL;
		}
	/* A CUDA 11/12 minor PyPI never had: say so, and that the ones it has lack nvcc too. */
	struct strv gap_minors = {0};
	const struct provision_gap *same_major = NULL;
	for (size_t i = 0; i < l->n_gaps; i++) {
		long gp[2];
		if (version_parts(l->gaps[i].minor, gp, 2) == 2 && gp[0] == parts[0]) {
			strv_push(a, &gap_minors, l->gaps[i].minor);
			same_major = &l->gaps[i];
		}
	}
	if (same_major) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision CUDA %s: PyPI has no CUDA %s packages "
		         "(%s exists for %s, and none of them carries nvcc)",
		         version, minor, same_major->package, join_words(a, &gap_minors, " and "));
		diag_msg(d, DIAG_HINT,
		         "install CUDA %s from NVIDIA's repository and point "
		         "[tool.cuwheel.toolkits] at it",
		         minor);
		return NULL;
	}
	diag_msg(d, DIAG_ERROR,
	         "cannot provision CUDA %s: PyPI had no CUDA %s packages when the "
	         "lock file was generated (%s); it pins %s",
	         version, minor, l->generated,
	         minors.n ? join_words(a, &minors, " and ") : "nothing");
	diag_msg(d, DIAG_HINT,
	         "if NVIDIA has published CUDA %s on PyPI since, regenerate %s "
	         "with ci/update-toolkit-lock",
	         minor, l->path);
	return NULL;
}

const char *provision_python(struct arena *a, const char *const *env)
{
	const char *p = env_get(env, "CUWHEEL_PYTHON");
	if (p && *p)
		return p;
	char *py = os_which(a, "python3");
	if (py)
		return py;
	const char *root = env_get(env, "PYENV_ROOT");
	const char *home = env_get(env, "HOME");
	if (!root && home)
		root = os_join(a, home, ".pyenv");
	if (!root)
		return NULL;
	struct strv vers = {0};
	const char *newest = NULL;
	char *dir = os_join(a, root, "versions");
	if (!os_list_dir(a, dir, &vers))
		return NULL;
	for (size_t i = 0; i < vers.n; i++) {
		char *cand = arena_printf(a, "%s/%s/bin/python3", dir, vers.v[i]);
		long parts[3];
		if (version_parts(vers.v[i], parts, 3) == 3 && os_is_exec(cand) &&
		    (!newest || version_cmp(vers.v[i], newest) > 0))
			newest = vers.v[i];
	}
	return newest ? arena_printf(a, "%s/%s/bin/python3", dir, newest) : NULL;
}

/* Takes <dir>/.lock exclusively (waiting, with a note, when another install holds it). Returns
 * the fd to close, or -1 + diagnostic. */
static int lock_dir(struct arena *a, struct diag *d, const char *dir)
{
	char *path = os_join(a, dir, ".lock");
	int fd = os_lock_open(d, path, false);
	if (fd < 0 || os_lock_try(fd))
		return fd;
	diag_path(d, DIAG_NOTE, dir, "waiting for another cuwheel toolkit command to finish");
	if (!os_lock_wait(d, fd, path)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Removes the .tmp-* and .trash-* trees a killed command left (the caller holds the lock, so
 * no live command owns them). */
static bool remove_stale(struct arena *a, struct diag *d, const char *dir)
{
	struct strv ents = {0};
	if (!os_list_dir(a, dir, &ents))
		return true;
	for (size_t i = 0; i < ents.n; i++)
		if (strncmp(ents.v[i], ".tmp-", 5) == 0 || strncmp(ents.v[i], ".trash-", 7) == 0)
			if (!os_rm_rf(d, os_join(a, dir, ents.v[i])))
				return false;
	return true;
}

/* Where a file of the wheels' nvidia/cuNN/ tree goes in a toolkit root: lib/ becomes lib64/
 * (where nvcc.profile's -L points), libnvvm goes to nvvm/lib64/ as in NVIDIA's installers, the
 * packaging scan reports in .metadata/ dirs are dropped. NULL: drop it. */
static char *layout_path(struct arena *a, const char *rel)
{
	if (strncmp(rel, ".metadata/", 10) == 0 || strstr(rel, "/.metadata/"))
		return NULL;
	if (strncmp(rel, "lib/", 4) == 0) {
		const char *rest = rel + 4;
		if (strncmp(rest, "libnvvm", 7) == 0 && !strchr(rest, '/'))
			return arena_printf(a, "nvvm/lib64/%s", rest);
		return arena_printf(a, "lib64/%s", rest);
	}
	return arena_strdup(a, rel);
}

/* Moves the files under src (relative path rel) into the toolkit root, renaming as
 * layout_path says. Two wheels may not bring the same file. */
static bool merge_tree(struct arena *a, struct diag *d, const char *src, const char *rel,
                       const char *root, const char *wheel)
{
	struct strv ents = {0};
	if (!os_list_dir(a, src, &ents)) {
		diag_errno(d, src, "cannot list");
		return false;
	}
	for (size_t i = 0; i < ents.n; i++) {
		char *path = os_join(a, src, ents.v[i]);
		char *r = rel[0] ? os_join(a, rel, ents.v[i]) : arena_strdup(a, ents.v[i]);
		struct stat st;
		if (lstat(path, &st) != 0) {
			diag_errno(d, path, "cannot stat");
			return false;
		}
		if (S_ISDIR(st.st_mode)) {
			if (!merge_tree(a, d, path, r, root, wheel))
				return false;
			continue;
		}
		char *to_rel = layout_path(a, r);
		if (!to_rel)
			continue;
		char *to = os_join(a, root, to_rel);
		char *parent = arena_strndup(a, to, (size_t)(strrchr(to, '/') - to));
		if (!os_mkdir_p(d, parent))
			return false;
		if (os_exists(to)) {
			diag_path(d, DIAG_ERROR, wheel,
			          "%s is also in another of the toolkit's "
			          "wheels",
			          r);
			return false;
		}
		if (rename(path, to) != 0) {
			diag_errno(d, to, "cannot move into place");
			return false;
		}
	}
	return true;
}

/* Adds libX.so -> libX.so.N for each versioned library in dir that has no plain name, as
 * NVIDIA's installers do (so that -lcudart and dlopen("libnvvm.so") work). */
static bool add_dev_links(struct arena *a, struct diag *d, const char *dir)
{
	struct strv ents = {0};
	if (!os_list_dir(a, dir, &ents))
		return true;
	for (size_t i = 0; i < ents.n; i++) {
		const char *so = strstr(ents.v[i], ".so.");
		if (!so || strchr(so + 4, '.'))
			continue; /* only libX.so.N, the soname */
		char *plain = arena_strndup(a, ents.v[i], (size_t)(so - ents.v[i]) + 3);
		char *link = os_join(a, dir, plain);
		if (os_exists(link))
			continue;
		if (symlink(ents.v[i], link) != 0) {
			diag_errno(d, link, "cannot create symlink");
			return false;
		}
	}
	return true;
}

/* Checks that every piece nvcc needs is there (executables executable); names the wheel that
 * should have brought a missing one. */
static bool check_layout(struct arena *a, struct diag *d, const char *root,
                         const struct provision_set *s)
{
	bool ok = true;
	for (size_t i = 0; i < sizeof(provision_required) / sizeof(provision_required[0]); i++) {
		char *p = os_join(a, root, provision_required[i].path);
		bool there = provision_required[i].exec ? os_is_exec(p) : os_exists(p);
		if (there)
			continue;
		const char *ver = "";
		for (size_t j = 0; j < s->n_pkgs; j++)
			if (strcmp(s->pkgs[j].name, provision_required[i].package) == 0)
				ver = s->pkgs[j].version;
		diag_msg(d, DIAG_ERROR,
		         "cannot assemble CUDA %s: %s%s is missing (expected from "
		         "%s %s)",
		         s->version, provision_required[i].path,
		         provision_required[i].exec && os_exists(p) ? " is not executable, or" : "",
		         provision_required[i].package, *ver ? ver : "(not in the lock file)");
		ok = false;
	}
	return ok;
}

/* Runs <root>/bin/nvcc --version and checks it reports the pinned version. */
static bool check_nvcc(struct arena *a, struct diag *d, const char *root,
                       const struct provision_set *s)
{
	char *nvcc = os_join(a, root, "bin/nvcc");
	const char *argv[] = {nvcc, "--version", NULL};
	struct os_run r = {.argv = argv, .capture = true};
	struct strbuf out = {0};
	int status;
	if (!os_run(d, &r, &out, &status)) {
		sb_release(&out);
		return false;
	}
	char *want = arena_printf(a, ", V%s", s->version);
	bool ok = status == 0 && strstr(sb_str(&out), want);
	if (!ok) {
		diag_path(d, DIAG_ERROR, nvcc,
		          "the assembled nvcc does not run as CUDA %s "
		          "(exit %d): %s",
		          s->version, status, sb_str(&out));
	}
	sb_release(&out);
	return ok;
}

static const char *utc_now(struct arena *a)
{
	time_t t = time(NULL);
	struct tm tm;
	char buf[32];
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return arena_strdup(a, buf);
}

static bool write_marker(struct arena *a, struct diag *d, const char *root,
                         const struct provision_set *s, const char *source)
{
	json_t *pkgs = json_array();
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const struct provision_pkg *p = &s->pkgs[i];
		json_array_append_new(pkgs,
		                      json_pack("{s:s, s:s, s:s, s:s, s:I}", "name", p->name,
		                                "version", p->version, "filename", p->filename,
		                                "sha256", p->sha256, "size", (json_int_t)p->size));
	}
	json_t *m = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:o}", "schema", 1, "version",
	                      s->version, "minor", s->minor, "installed", utc_now(a), "source",
	                      source, "cuwheel", CUWHEEL_VERSION, "packages", pkgs);
	char *text = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(m);
	bool ok = os_write_atomic(d, os_join(a, root, PROVISION_MARKER), text, strlen(text), 0644);
	free(text);
	return ok;
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Downloads the set's wheels into dest with pip, hashes required. */
static bool pip_download(struct arena *a, struct diag *d, const struct provision_opts *o,
                         const struct provision_set *s, const char *python, const char *req,
                         const char *dest)
{
	struct strbuf rq = {0};
	int64_t total = 0;
	for (size_t i = 0; i < s->n_pkgs; i++) {
		sb_printf(&rq, "%s==%s --hash=sha256:%s\n", s->pkgs[i].name, s->pkgs[i].version,
		          s->pkgs[i].sha256);
		total += s->pkgs[i].size > 0 ? s->pkgs[i].size : 0;
	}
	bool ok = os_write_atomic(d, req, rq.buf, rq.len, 0644);
	sb_release(&rq);
	if (!ok)
		return false;
	struct strv argv = {0};
	const char *fixed[] = {python,
	                       "-m",
	                       "pip",
	                       "download",
	                       "--no-deps",
	                       "--only-binary=:all:",
	                       "--require-hashes",
	                       "--progress-bar",
	                       "off",
	                       "--disable-pip-version-check",
	                       "--dest",
	                       dest,
	                       "-r",
	                       req};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		strv_push(a, &argv, fixed[i]);
	/* The platform tags are the pinned files' own, so pip takes exactly those files whatever
	 * the host (and whichever manylinux tags NVIDIA uses next). */
	struct strv plats = {0};
	for (size_t i = 0; i < s->n_pkgs; i++) {
		const char *f = s->pkgs[i].filename, *dash = strrchr(f, '-');
		size_t n = strlen(f);
		if (!dash || n < 4 || strcmp(f + n - 4, ".whl") != 0)
			continue;
		char *tags = arena_strndup(a, dash + 1, (size_t)(f + n - 4 - dash - 1));
		for (char *sv, *t = strtok_r(tags, ".", &sv); t; t = strtok_r(NULL, ".", &sv))
			if (!strv_contains(&plats, t)) {
				strv_push(a, &plats, t);
				strv_push(a, &argv, "--platform");
				strv_push(a, &argv, t);
			}
	}
	if (o->wheels_dir) {
		strv_push(a, &argv, "--no-index");
		strv_push(a, &argv, "--find-links");
		strv_push(a, &argv, o->wheels_dir);
	}
	strv_push(a, &argv, NULL);
	diag_msg(d, DIAG_NOTE, "downloading %zu wheels (%.0f MB) for CUDA %s from %s", s->n_pkgs,
	         (double)total / 1e6, s->version, o->wheels_dir ? o->wheels_dir : "PyPI");
	struct os_run r = {.argv = argv.v, .capture = true};
	struct strbuf out = {0};
	int status;
	ok = os_run(d, &r, &out, &status);
	if (ok && status != 0) {
		/* pip's own explanation is in its last lines (hash mismatch, no such version). */
		const char *text = sb_str(&out);
		const char *tail = text + out.len;
		for (int lines = 0; tail > text; tail--)
			if (tail[-1] == '\n' && ++lines > 12)
				break;
		diag_msg(d, DIAG_ERROR, "pip could not download the CUDA %s wheels (exit %d): %s",
		         s->version, status, os_argv_str(a, argv.v));
		diag_msg(d, DIAG_NOTE, "pip said:\n%s", tail);
		ok = false;
	}
	sb_release(&out);
	return ok;
}

/* Everything between taking the lock and renaming into place; on failure the caller removes
 * the staging tree. */
static bool assemble(struct arena *a, struct diag *d, const struct provision_opts *o,
                     const struct provision_set *s, const char *staging)
{
	const char *python = o->python ? o->python : provision_python(a, o->env);
	if (!python) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision CUDA %s: no python3 with pip found to "
		         "download the wheels",
		         s->version);
		diag_msg(d, DIAG_HINT, "set CUWHEEL_PYTHON to a python that has pip");
		return false;
	}
	char *wheels = os_join(a, staging, ".wheels");
	char *unpack = os_join(a, staging, ".unpack");
	char *req = os_join(a, staging, ".requirements.txt");
	if (!os_mkdir_p(d, wheels) || !pip_download(a, d, o, s, python, req, wheels))
		return false;
	char *sub = arena_printf(a, "nvidia/cu%d", s->major);
	for (size_t i = 0; i < s->n_pkgs; i++) {
		char *whl = os_join(a, wheels, s->pkgs[i].filename);
		char *dest = arena_printf(a, "%s/%zu", unpack, i);
		if (!os_exists(whl)) {
			diag_path(d, DIAG_ERROR, whl, "pip did not download the pinned wheel");
			return false;
		}
		if (!wheel_extract(a, d, whl, dest, NULL))
			return false;
		char *tree = os_join(a, dest, sub);
		if (!os_is_dir(tree)) {
			diag_path(d, DIAG_ERROR, s->pkgs[i].filename,
			          "has no %s/ tree; cuwheel "
			          "does not know how to assemble it",
			          sub);
			return false;
		}
		if (!merge_tree(a, d, tree, "", staging, s->pkgs[i].filename))
			return false;
	}
	if (!os_rm_rf(d, unpack) || !os_rm_rf(d, wheels) || !os_rm_rf(d, req))
		return false;
	/* NVIDIA's installers keep lib -> lib64 too; nvcc.profile names $(TOP)/lib in
	 * LD_LIBRARY_PATH and $(TOP)/lib64 in -L. The stock nvcc.profile is already relative to
	 * nvcc ($(_HERE_)) and needs no change once the layout is the installers'. */
	char *lib = os_join(a, staging, "lib");
	if (!os_exists(lib) && symlink("lib64", lib) != 0) {
		diag_errno(d, lib, "cannot create symlink");
		return false;
	}
	if (!add_dev_links(a, d, os_join(a, staging, "lib64")) ||
	    !add_dev_links(a, d, os_join(a, staging, "nvvm/lib64")))
		return false;
	if (!check_layout(a, d, staging, s) || !check_nvcc(a, d, staging, s))
		return false;
	return write_marker(a, d, staging, s, o->wheels_dir ? o->wheels_dir : "pypi");
}

enum provision_result provision_install(struct arena *a, struct diag *d,
                                        const struct provision_opts *o,
                                        const struct provision_set *s, const char **root)
{
#if !defined(__linux__) || !defined(__x86_64__)
	diag_msg(d, DIAG_ERROR,
	         "cannot provision CUDA %s: the lock file pins linux x86_64 "
	         "wheels only",
	         s->version);
	return PROVISION_FAILED;
#endif
	char *dir = os_join(a, o->cache_dir, "toolkits");
	if (!os_mkdir_p(d, dir))
		return PROVISION_FAILED;
	dir = os_realpath(a, dir);
	if (!dir) {
		diag_errno(d, o->cache_dir, "cannot resolve");
		return PROVISION_FAILED;
	}
	int lock = lock_dir(a, d, dir);
	if (lock < 0)
		return PROVISION_FAILED;
	char *final = os_join(a, dir, s->version);
	*root = final;
	enum provision_result res = PROVISION_FAILED;
	if (os_exists(os_join(a, final, PROVISION_MARKER))) {
		res = PROVISION_ALREADY;
		goto out;
	}
	if (!remove_stale(a, d, dir))
		goto out;
	char *staging = arena_printf(a, "%s/.tmp-%s-%ld", dir, s->version, (long)getpid());
	if (!os_mkdir_p(d, staging))
		goto out;
	if (!assemble(a, d, o, s, staging)) {
		os_rm_rf(d, staging);
		goto out;
	}
	/* A tree without the marker where the toolkit goes was never ours to keep (a copy
	 * interrupted by hand): set it aside like a removal. */
	if (os_exists(final)) {
		char *trash = arena_printf(a, "%s/.trash-%s-%ld", dir, s->version, (long)getpid());
		if (rename(final, trash) != 0 || !os_rm_rf(d, trash)) {
			diag_errno(d, final, "cannot replace the incomplete tree");
			os_rm_rf(d, staging);
			goto out;
		}
	}
	fsync_dir(staging);
	if (rename(staging, final) != 0) {
		diag_errno(d, final, "cannot move the toolkit into place");
		os_rm_rf(d, staging);
		goto out;
	}
	fsync_dir(dir);
	res = PROVISION_INSTALLED;
out:
	close(lock);
	return res;
}

/* Bytes of the files under path, symlinks counted as themselves. */
static uint64_t tree_size(struct arena *a, const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_size;
	struct strv ents = {0};
	uint64_t sum = 0;
	if (os_list_dir(a, path, &ents))
		for (size_t i = 0; i < ents.n; i++)
			sum += tree_size(a, os_join(a, path, ents.v[i]));
	return sum;
}

static int installed_cmp(const void *x, const void *y)
{
	const struct provision_installed *p = x, *q = y;
	return version_cmp(q->version, p->version);
}

bool provision_list(struct arena *a, struct diag *d, const char *cache_dir,
                    struct provision_installed **out, size_t *n)
{
	char *dir = os_join(a, cache_dir, "toolkits");
	*out = NULL;
	*n = 0;
	struct strv ents = {0};
	if (!os_is_dir(dir))
		return true;
	if (!os_list_dir(a, dir, &ents)) {
		diag_errno(d, dir, "cannot list");
		return false;
	}
	*out = arena_calloc(a, ents.n ? ents.n : 1, sizeof(**out));
	for (size_t i = 0; i < ents.n; i++) {
		if (ents.v[i][0] == '.')
			continue; /* .lock, .tmp-*, .trash-* */
		char *root = os_join(a, dir, ents.v[i]);
		char *marker = os_join(a, root, PROVISION_MARKER);
		if (!os_exists(marker))
			continue;
		json_error_t err;
		json_t *m = json_load_file(marker, 0, &err);
		const char *ver = m ? jstr(m, "version") : NULL;
		if (!ver) {
			diag_path(d, DIAG_WARNING, marker, "unreadable toolkit marker: skipped");
			json_decref(m);
			continue;
		}
		struct provision_installed *t = &(*out)[(*n)++];
		char *real = os_realpath(a, root);
		t->root = real ? real : root;
		t->version = arena_strdup(a, ver);
		const char *when = jstr(m, "installed");
		t->installed = arena_strdup(a, when ? when : "");
		json_t *pkgs = json_object_get(m, "packages");
		t->n_pkgs = json_is_array(pkgs) ? json_array_size(pkgs) : 0;
		t->pkgs = arena_calloc(a, t->n_pkgs ? t->n_pkgs : 1, sizeof(*t->pkgs));
		size_t k = 0;
		for (size_t j = 0; j < t->n_pkgs; j++)
			if (pkg_from_json(a, json_array_get(pkgs, j), &t->pkgs[k]))
				k++;
		t->n_pkgs = k;
		json_decref(m);
		t->size = tree_size(a, root);
	}
	qsort(*out, *n, sizeof(**out), installed_cmp);
	return true;
}

bool provision_remove(struct arena *a, struct diag *d, const char *cache_dir, const char *version,
                      const char **removed)
{
	long parts[3];
	int np = version_parts(version, parts, 3);
	if (np < 2) {
		diag_msg(d, DIAG_ERROR,
		         "'%s' is not a CUDA version (MAJOR.MINOR or "
		         "MAJOR.MINOR.PATCH)",
		         version);
		return false;
	}
	char *dir = os_join(a, cache_dir, "toolkits");
	if (!os_is_dir(dir)) {
		diag_msg(d, DIAG_ERROR, "CUDA %s is not installed: %s has no toolkits", version,
		         cache_dir);
		return false;
	}
	int lock = lock_dir(a, d, dir);
	if (lock < 0)
		return false;
	bool ok = false;
	struct provision_installed *ts;
	size_t n;
	if (!provision_list(a, d, cache_dir, &ts, &n))
		goto out;
	struct strv match = {0}, all = {0};
	const struct provision_installed *hit = NULL;
	for (size_t i = 0; i < n; i++) {
		strv_push(a, &all, ts[i].version);
		if (np == 3 ? strcmp(ts[i].version, version) == 0
		            : version_in_minor(ts[i].version, version)) {
			strv_push(a, &match, ts[i].version);
			hit = &ts[i];
		}
	}
	if (match.n == 0) {
		diag_msg(d, DIAG_ERROR, "CUDA %s is not installed in %s", version, dir);
		if (all.n)
			diag_msg(d, DIAG_HINT, "installed: %s", join_words(a, &all, " and "));
		goto out;
	}
	if (match.n > 1) {
		diag_msg(d, DIAG_ERROR, "CUDA %s matches %s: name the one to remove", version,
		         join_words(a, &match, " and "));
		goto out;
	}
	char *trash = arena_printf(a, "%s/.trash-%s-%ld", dir, hit->version, (long)getpid());
	if (rename(hit->root, trash) != 0) {
		diag_errno(d, hit->root, "cannot move aside");
		goto out;
	}
	fsync_dir(dir);
	/* The marker goes first, so a kill during the removal leaves nothing that looks whole. */
	unlink(os_join(a, trash, PROVISION_MARKER));
	if (!os_rm_rf(d, trash))
		goto out;
	*removed = hit->root;
	ok = true;
out:
	close(lock);
	return ok;
}
