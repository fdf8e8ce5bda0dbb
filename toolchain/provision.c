/* provision.c: the toolkit lock file, and installing, listing and removing provisioned toolkits
 * in cuwheel's cache; the sources (provision_pypi.c, provision_debian.c) fill a staging tree. */
#include "toolchain/provision_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-lock.h"
#include "base/os-sys.h"
#include "base/strbuf.h"
#include "standards/json_values.h"
#include "standards/version.h"
#include "standards/wheel_read.h"

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

const char *provision_lock_file(struct arena *a, const char *const *env, const char *var,
                                const char *name)
{
	const char *p = env_nonempty(env, var);
	if (p)
		return p;
	/* The lock files are committed beside this source; a binary built from a checkout finds
	 * them there. An installed binary looks in ../share/cuwheel of its own directory. */
	const char *self = __FILE__;
	const char *slash = strrchr(self, '/');
	if (self[0] == '/' && slash) {
		char *cand = arena_printf(a, "%.*s/%s", (int)(slash - self), self, name);
		if (os_exists(cand))
			return cand;
	}
	char *exe = os_self_exe(a);
	if (exe && (slash = strrchr(exe, '/'))) {
		char *cand =
		    arena_printf(a, "%.*s/../share/cuwheel/%s", (int)(slash - exe), exe, name);
		if (os_exists(cand))
			return cand;
	}
	return NULL;
}

const char *provision_lock_path(struct arena *a, const char *const *env)
{
	return provision_lock_file(a, env, "CUWHEEL_TOOLKIT_LOCK", "toolkits.lock.json");
}

static int set_cmp(const void *x, const void *y)
{
	return version_dotted_cmp(((const struct provision_set *)x)->version,
	                          ((const struct provision_set *)y)->version);
}

/* The sources, in the order their sections are read from the lock file. */
static const struct provision_source_ops *const sources[] = {&provision_pypi, &provision_debian};

static const struct provision_source_ops *source_of(const struct provision_set *s)
{
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (sources[i]->id == s->source)
			return sources[i];
	return sources[0];
}

const char *provision_source_name(struct arena *a, const struct provision_set *s)
{
	return source_of(s)->name(a, s);
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
	json_t *gaps = json_object_get(root, "unassemblable");
	if (!json_is_integer(schema) ||
	    (json_integer_value(schema) != 1 && json_integer_value(schema) != 2)) {
		diag_path(d, DIAG_ERROR, path, "not a schema 1 or 2 toolkit lock file");
		goto done;
	}
	const char *gen = provision_jstr(root, "generated");
	out->generated = arena_strdup(a, gen ? gen : "unknown");
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (!sources[i]->lock_read(a, d, path, root, out))
			goto done;
	qsort(out->sets, out->n_sets, sizeof(*out->sets), set_cmp);
	out->n_gaps = json_is_array(gaps) ? json_array_size(gaps) : 0;
	out->gaps = arena_calloc(a, out->n_gaps ? out->n_gaps : 1, sizeof(*out->gaps));
	for (size_t i = 0; i < out->n_gaps; i++) {
		json_t *g = json_array_get(gaps, i);
		struct provision_gap *gp = &out->gaps[i];
		const char *minor = provision_jstr(g, "minor"), *pkg = provision_jstr(g, "package");
		const char *ver = provision_jstr(g, "version");
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
		json_strv_read(a, json_object_get(g, "has"), &gp->has);
		json_strv_read(a, json_object_get(g, "lacks"), &gp->lacks);
	}
	ok = true;
done:
	json_decref(root);
	return ok;
}

/* The message for a minor whose packages lack the compiler: what they hold and what not. */
static void report_gap(struct arena *a, struct diag *d, const char *version,
                       const struct provision_gap *g, const char *debian)
{
	diag_msg(d, DIAG_ERROR,
	         "cannot provision CUDA %s: PyPI's CUDA %s packages carry no nvcc (%s %s ships "
	         "only %s, not %s)%s",
	         version, g->minor, g->package, g->version, join_words(a, &g->has, " and "),
	         join_words(a, &g->lacks, " or "), debian);
	diag_msg(d, DIAG_HINT,
	         "install CUDA %s from NVIDIA's repository and point [tool.cuwheel.toolkits] at it",
	         g->minor);
}

/* "; Debian's archive has only CUDA 11.8 and 12.4" (the other source), or "". */
static const char *debian_has(struct arena *a, const struct provision_lock *l)
{
	struct strv m = {0};
	for (size_t i = 0; i < l->n_sets; i++)
		if (l->sets[i].source == PROVISION_DEBIAN && !strv_contains(&m, l->sets[i].minor))
			strv_push(a, &m, l->sets[i].minor);
	if (!m.n)
		return "";
	return arena_printf(a, "; Debian's archive has only CUDA %s", join_words(a, &m, " and "));
}

const struct provision_set *provision_resolve(struct arena *a, struct diag *d,
                                              const struct provision_lock *l, const char *version)
{
	long parts[3];
	int n = version_dotted_parts(version, parts, 3);
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
		if (n == 3 ? version_dotted_cmp(s->version, version) == 0
		           : (!best || version_dotted_cmp(s->version, best->version) > 0))
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
		         "regenerate %s with tools/update-toolkit-lock",
		         minor, l->path);
		return NULL;
	}
	for (size_t i = 0; i < l->n_gaps; i++)
		if (strcmp(l->gaps[i].minor, minor) == 0) {
			report_gap(a, d, version, &l->gaps[i], debian_has(a, l));
			return NULL;
		}
	/* A CUDA 11/12 minor PyPI never had: say so, and that the ones it has lack nvcc too. */
	struct strv gap_minors = {0};
	const struct provision_gap *same_major = NULL;
	for (size_t i = 0; i < l->n_gaps; i++) {
		long gp[2];
		if (version_dotted_parts(l->gaps[i].minor, gp, 2) == 2 && gp[0] == parts[0]) {
			strv_push(a, &gap_minors, l->gaps[i].minor);
			same_major = &l->gaps[i];
		}
	}
	if (same_major) {
		diag_msg(d, DIAG_ERROR,
		         "cannot provision CUDA %s: PyPI has no CUDA %s packages "
		         "(%s exists for %s, and none of them carries nvcc)%s",
		         version, minor, same_major->package, join_words(a, &gap_minors, " and "),
		         debian_has(a, l));
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
	         "with tools/update-toolkit-lock",
	         minor, l->path);
	return NULL;
}

/* Takes <dir>/.lock exclusively (waiting, with a note, when another install holds it). Returns
 * the fd to close, or -1 + diagnostic. */
int provision_lock_dir(struct arena *a, struct diag *d, const char *dir, const char *cmd)
{
	char *path = os_join(a, dir, ".lock");
	int fd = os_lock_open(d, path, false);
	if (fd < 0 || os_lock_try(fd))
		return fd;
	diag_path(d, DIAG_NOTE, dir, "waiting for another cuwheel %s command to finish", cmd);
	if (!os_lock_wait(d, fd, path)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The caller holds the lock, so no live command owns the trees. */
void provision_remove_stale(struct arena *a, struct diag *d, const char *dir)
{
	struct strv ents = {0};
	if (!os_list_dir(a, dir, &ents))
		return;
	for (size_t i = 0; i < ents.n; i++) {
		if (strncmp(ents.v[i], ".tmp-", 5) != 0 && strncmp(ents.v[i], ".trash-", 7) != 0)
			continue;
		/* A killed command's children (tar extracting a .deb) may still be writing there:
		 * what cannot be removed now is left for a later command, it does not stop this one
		 * (its own staging tree has another name). */
		struct diag quiet = {0};
		if (!os_rm_rf(&quiet, os_join(a, dir, ents.v[i])))
			diag_path(d, DIAG_WARNING, os_join(a, dir, ents.v[i]),
			          "cannot remove a stale tree yet (still being written?); left for "
			          "later");
	}
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

bool provision_write_marker(struct arena *a, struct diag *d, const char *root, const char *marker,
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
	char *text = json_dump_text(a, m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(m);
	if (!text) {
		diag_path(d, DIAG_ERROR, os_join(a, root, marker), "cannot render JSON");
		return false;
	}
	return os_write_atomic(d, os_join(a, root, marker), text, strlen(text), 0644);
}

char *provision_cache_subdir(struct arena *a, struct diag *d, const char *cache_dir,
                             const char *name)
{
	char *dir = os_join(a, cache_dir, name);
	if (!os_mkdir_p(d, dir))
		return NULL;
	char *real = os_realpath(a, dir);
	if (!real)
		diag_errno(d, cache_dir, "cannot resolve");
	return real;
}

bool provision_set_aside(struct arena *a, struct diag *d, const char *dir, const char *version,
                         const char *root)
{
	char *trash = arena_printf(a, "%s/.trash-%s-%ld", dir, version, (long)getpid());
	if (!os_rename(root, trash) || !os_rm_rf(d, trash)) {
		diag_errno(d, root, "cannot replace the incomplete tree");
		return false;
	}
	return true;
}

bool provision_move_into_place(struct diag *d, const char *dir, const char *staging,
                               const char *root, const char *failure)
{
	os_fsync_dir(staging);
	if (!os_rename(staging, root)) {
		diag_errno(d, root, failure);
		os_rm_rf(d, staging);
		return false;
	}
	os_fsync_dir(dir);
	return true;
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
	char *dir = provision_cache_subdir(a, d, o->cache_dir, "toolkits");
	if (!dir)
		return PROVISION_FAILED;
	int lock = provision_lock_dir(a, d, dir, "toolkit");
	if (lock < 0)
		return PROVISION_FAILED;
	char *final = os_join(a, dir, s->version);
	*root = final;
	enum provision_result res = PROVISION_FAILED;
	if (os_exists(os_join(a, final, PROVISION_MARKER))) {
		res = PROVISION_ALREADY;
		goto out;
	}
	provision_remove_stale(a, d, dir);
	char *staging = arena_printf(a, "%s/.tmp-%s-%ld", dir, s->version, (long)getpid());
	if (!os_mkdir_p(d, staging))
		goto out;
	const struct provision_source_ops *src = source_of(s);
	if (!src->assemble(a, d, o, s, staging) ||
	    !provision_write_marker(a, d, staging, PROVISION_MARKER, s, src->marker(a, o, s))) {
		os_rm_rf(d, staging);
		goto out;
	}
	/* A tree without the marker where the toolkit goes was never ours to keep (a copy
	 * interrupted by hand): set it aside like a removal. */
	if (os_exists(final) && !provision_set_aside(a, d, dir, s->version, final)) {
		os_rm_rf(d, staging);
		goto out;
	}
	if (!provision_move_into_place(d, dir, staging, final,
	                               "cannot move the toolkit into place"))
		goto out;
	res = PROVISION_INSTALLED;
out:
	close(lock);
	return res;
}

/* Bytes of the files under path, symlinks counted as themselves. */
static uint64_t tree_size(struct arena *a, const char *path)
{
	struct os_stat st;
	if (!os_lstat(path, &st))
		return 0;
	if (st.kind != OS_KIND_DIR)
		return (uint64_t)st.size;
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
	return version_dotted_cmp(q->version, p->version);
}

bool provision_list(struct arena *a, struct diag *d, const char *cache_dir,
                    struct provision_installed **out, size_t *n)
{
	return provision_list_in(a, d, os_join(a, cache_dir, "toolkits"), PROVISION_MARKER, out, n);
}

bool provision_list_in(struct arena *a, struct diag *d, const char *dir, const char *marker_name,
                       struct provision_installed **out, size_t *n)
{
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
		char *marker = os_join(a, root, marker_name);
		if (!os_exists(marker))
			continue;
		json_error_t err;
		json_t *m = json_load_file(marker, 0, &err);
		const char *ver = m ? provision_jstr(m, "version") : NULL;
		if (!ver) {
			diag_path(d, DIAG_WARNING, marker, "unreadable install marker: skipped");
			json_decref(m);
			continue;
		}
		struct provision_installed *t = &(*out)[(*n)++];
		char *real = os_realpath(a, root);
		t->root = real ? real : root;
		t->entry = root;
		t->version = arena_strdup(a, ver);
		const char *src = provision_jstr(m, "source");
		t->source = arena_strdup(a, src ? src : "unknown");
		const char *when = provision_jstr(m, "installed");
		t->installed = arena_strdup(a, when ? when : "");
		json_t *pkgs = json_object_get(m, "packages");
		t->n_pkgs = json_is_array(pkgs) ? json_array_size(pkgs) : 0;
		t->pkgs = arena_calloc(a, t->n_pkgs ? t->n_pkgs : 1, sizeof(*t->pkgs));
		size_t k = 0;
		for (size_t j = 0; j < t->n_pkgs; j++)
			if (provision_pkg_from_json(a, json_array_get(pkgs, j), &t->pkgs[k], true))
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
	char *dir = os_join(a, cache_dir, "toolkits");
	if (!os_is_dir(dir) && version_dotted_parts(version, (long[3]){0}, 3) >= 2) {
		diag_msg(d, DIAG_ERROR, "CUDA %s is not installed: %s has no toolkits", version,
		         cache_dir);
		return false;
	}
	return provision_remove_in(a, d, dir, PROVISION_MARKER, "CUDA", version, removed);
}

bool provision_remove_in(struct arena *a, struct diag *d, const char *dir, const char *marker,
                         const char *what, const char *version, const char **removed)
{
	long parts[3];
	int np = version_dotted_parts(version, parts, 3);
	if (np < 2) {
		diag_msg(d, DIAG_ERROR,
		         "'%s' is not a %s version (MAJOR.MINOR or "
		         "MAJOR.MINOR.PATCH)",
		         version, what);
		return false;
	}
	if (!os_is_dir(dir)) {
		diag_msg(d, DIAG_ERROR, "%s %s is not installed: %s does not exist", what, version,
		         dir);
		return false;
	}
	int lock = provision_lock_dir(a, d, dir, strcmp(what, "CUDA") == 0 ? "toolkit" : "python");
	if (lock < 0)
		return false;
	bool ok = false;
	struct provision_installed *ts;
	size_t n;
	if (!provision_list_in(a, d, dir, marker, &ts, &n))
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
		diag_msg(d, DIAG_ERROR, "%s %s is not installed in %s", what, version, dir);
		if (all.n)
			diag_msg(d, DIAG_HINT, "installed: %s", join_words(a, &all, " and "));
		goto out;
	}
	if (match.n > 1) {
		diag_msg(d, DIAG_ERROR, "%s %s matches %s: name the one to remove", what, version,
		         join_words(a, &match, " and "));
		goto out;
	}
	/* The entry itself, never what it resolves to: a link is unlinked, and only a real
	 * directory of the cache is moved aside and deleted (os_rm_rf follows no link). */
	struct os_stat st;
	if (!os_lstat(hit->entry, &st)) {
		diag_errno(d, hit->entry, "cannot stat");
		goto out;
	}
	if (st.kind == OS_KIND_LINK) {
		if (!os_unlink(hit->entry)) {
			diag_errno(d, hit->entry, "cannot remove the link");
			goto out;
		}
		os_fsync_dir(dir);
		diag_path(d, DIAG_NOTE, hit->entry,
		          "was a link to %s: the link is removed, its target left as it was",
		          hit->root);
		*removed = hit->entry;
		ok = true;
		goto out;
	}
	char *trash = arena_printf(a, "%s/.trash-%s-%ld", dir, hit->version, (long)getpid());
	if (!os_rename(hit->entry, trash)) {
		diag_errno(d, hit->entry, "cannot move aside");
		goto out;
	}
	os_fsync_dir(dir);
	/* The marker goes first, so a kill during the removal leaves nothing that looks whole. */
	os_unlink(os_join(a, trash, marker));
	if (!os_rm_rf(d, trash))
		goto out;
	*removed = hit->entry;
	ok = true;
out:
	close(lock);
	return ok;
}
