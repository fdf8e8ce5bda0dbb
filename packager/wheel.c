/* wheel.c: wheel_pack: a staged tree + the project's metadata -> a reproducible wheel. */
#include "packager/wheel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/escape.h"
#include "base/os-file.h"
#include "standards/metadata.h"
#include "standards/tags.h"
#include "standards/version.h"
#include "standards/wheel_read.h"

struct pk_file {
	const char *name; /* archive name */
	const char *path; /* on disk */
	uint64_t size;
	bool exec;
};

struct pk_files {
	struct pk_file *v;
	size_t n, cap;
};

static void pk_push(struct arena *a, struct pk_files *f, const char *name, const char *path,
                    uint64_t size, bool exec)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 128;
		f->v = arena_realloc(a, f->v, f->n, cap, sizeof(*f->v));
		f->cap = cap;
	}
	f->v[f->n++] = (struct pk_file){name, path, size, exec};
}

/* Walks dir (archive prefix rel) collecting regular files; symlinks and special files are
 * refused: a wheel cannot represent them and following them would copy outside content. */
static bool pk_walk(struct arena *a, struct diag *d, const char *dir, const char *rel,
                    struct pk_files *out, int depth)
{
	if (depth > 64) {
		diag_path(d, DIAG_ERROR, dir, "directory tree too deep (over 64 levels)");
		return false;
	}
	struct strv names = {0};
	if (!os_list_dir(a, dir, &names)) {
		diag_errno(d, dir, "cannot list");
		return false;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *path = os_join(a, dir, names.v[i]);
		const char *name = rel ? arena_printf(a, "%s/%s", rel, names.v[i]) : names.v[i];
		struct os_stat st;
		if (!os_lstat(path, &st)) {
			diag_errno(d, path, "cannot stat");
			return false;
		}
		if (st.kind == OS_KIND_LINK) {
			diag_path(
			    d, DIAG_ERROR, path,
			    "is a symbolic link: wheels cannot hold links and cuwheel does not "
			    "follow them; stage a copy of the target instead");
			return false;
		}
		if (st.kind == OS_KIND_DIR) {
			if (!pk_walk(a, d, path, name, out, depth + 1))
				return false;
			continue;
		}
		if (st.kind != OS_KIND_FILE) {
			diag_path(d, DIAG_ERROR, path, "is not a regular file or directory");
			return false;
		}
		const char *why = zip_name_problem(name);
		if (why) {
			diag_path(d, DIAG_ERROR, path, "cannot be stored in a wheel: %s", why);
			return false;
		}
		pk_push(a, out, name, path, (uint64_t)st.size, (st.mode & 0111) != 0);
	}
	return true;
}

static int pk_cmp(const void *x, const void *y)
{
	return strcmp(((const struct pk_file *)x)->name, ((const struct pk_file *)y)->name);
}

/* The full version: the project's public version plus the normalised local label. */
static char *pk_version(struct arena *a, struct diag *d, const struct pack_opts *o)
{
	const char *local = o->local ? o->local : o->meta->version_local;
	const char *text = o->meta->version;
	if (!text) {
		diag_path(d, DIAG_ERROR, o->meta->name, "the project has no version");
		return NULL;
	}
	const char *err = NULL;
	struct pep440 v;
	if (!pep440_parse(a, text, &v, &err)) {
		diag_path(d, DIAG_ERROR, o->meta->name, "version '%s': %s", text, err);
		return NULL;
	}
	if (local && local[0]) {
		if (v.local) {
			diag_path(d, DIAG_ERROR, o->meta->name,
			          "version '%s' already has a local label; cannot add '+%s'", text,
			          local);
			return NULL;
		}
		const char *l = pep440_normalize_local(a, local, &err);
		if (!l) {
			diag_path(d, DIAG_ERROR, o->meta->name, "local label '%s': %s", local, err);
			return NULL;
		}
		v.local = l;
	}
	return pep440_str(a, &v);
}

bool wheel_pack(struct arena *a, struct diag *d, const struct pack_opts *o, char **out_path)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t started = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	const struct project_meta *meta = o->meta;
	if (!meta || !meta->name || !name_is_valid(meta->name)) {
		diag_path(d, DIAG_ERROR, o->staged_dir, "the project name '%s' is not valid",
		          meta && meta->name ? meta->name : "");
		return false;
	}
	if (!os_is_dir(o->staged_dir)) {
		diag_path(d, DIAG_ERROR, o->staged_dir, "not a directory");
		return false;
	}
	if (o->compression < 0 || o->compression > 9) {
		diag_path(d, DIAG_ERROR, o->staged_dir, "compression level %d is not 0..9",
		          o->compression);
		return false;
	}
	char *version = pk_version(a, d, o);
	if (!version)
		return false;
	char *fname =
	    wheel_filename(a, meta->name, version, o->build, o->python, o->abi, o->platform);
	if (!fname) {
		diag_path(d, DIAG_ERROR, o->staged_dir,
		          "cannot name the wheel: invalid build tag '%s' or tags '%s-%s-%s'",
		          o->build ? o->build : "", o->python, o->abi, o->platform);
		return false;
	}
	struct wheel_tag *tags;
	size_t n_tags = wheel_tags_expand(a, o->python, o->abi, o->platform, &tags);
	if (!n_tags) {
		diag_path(d, DIAG_ERROR, o->staged_dir, "invalid tags '%s-%s-%s'", o->python,
		          o->abi, o->platform);
		return false;
	}
	const char *dist = name_wheel_escape(a, meta->name);
	char *distinfo = arena_printf(a, "%s-%s.dist-info", dist, version);

	/* The payload, sorted by byte value; no .dist-info of its own. */
	struct pk_files files = {0};
	if (!pk_walk(a, d, o->staged_dir, NULL, &files, 0))
		return false;
	if (files.n)
		qsort(files.v, files.n, sizeof(*files.v), pk_cmp);
	for (size_t i = 0; i < files.n; i++) {
		const char *slash = strchr(files.v[i].name, '/');
		size_t top = slash ? (size_t)(slash - files.v[i].name) : strlen(files.v[i].name);
		if (top > 10 && strncasecmp(files.v[i].name + top - 10, ".dist-info", 10) == 0) {
			diag_path(d, DIAG_ERROR, files.v[i].path,
			          "the staged tree holds a .dist-info directory; cuwheel writes "
			          "%s itself",
			          distinfo);
			return false;
		}
		/* pip installs any top-level *.data/scripts/ into the environment's bin/: the
		 * wheels cuwheel packs hold no .data directory at all. */
		bool own = o->own_data && top == strlen(distinfo) - 5 &&
		           !strncmp(files.v[i].name, distinfo, top - 5) &&
		           !strncmp(files.v[i].name + top - 5, ".data", 5);
		if (!own && top >= 5 && strncasecmp(files.v[i].name + top - 5, ".data", 5) == 0) {
			diag_path(
			    d, DIAG_ERROR, files.v[i].path,
			    "the staged tree holds a .data directory ('%s'), which installers "
			    "spread over the environment (scripts into bin/); cuwheel packs "
			    "none",
			    esc_mem(a, ESC_TERM, files.v[i].name, top));
			return false;
		}
	}

	/* The .dist-info files, sorted by name with RECORD last. */
	const char *where = o->project_dir ? o->project_dir : o->staged_dir;
	size_t md_len;
	char *md = metadata_render(a, d, where, meta, version, &md_len);
	if (!md)
		return false;
	const char *gen = o->generator ? o->generator : "cuwheel " CUWHEEL_VERSION;
	char *wheel = metadata_wheel_render(a, gen, o->root_is_purelib, o->build, tags, n_tags);
	char *eps = metadata_entry_points_render(a, meta);
	struct pk_files lic = {0};
	for (size_t i = 0; i < meta->license_files.n; i++) {
		const char *rel = meta->license_files.v[i];
		const char *why = zip_name_problem(rel);
		if (why) {
			diag_path(d, DIAG_ERROR, rel, "license file path: %s", why);
			return false;
		}
		const char *path = o->project_dir ? os_join(a, o->project_dir, rel) : rel;
		/* A licence that is a symlink (LICENSE -> docs/LICENSE.txt, checked at plan to stay
		 * in the project) is packed from the file it leads to: members are read with
		 * O_NOFOLLOW. */
		const char *real = os_realpath(a, path);
		if (real)
			path = real;
		struct os_stat st;
		if (!os_stat(path, &st)) {
			diag_errno(d, path, "cannot read the license file");
			return false;
		}
		if (st.kind != OS_KIND_FILE) {
			diag_path(d, DIAG_ERROR, path, "license file is not a regular file");
			return false;
		}
		pk_push(a, &lic, arena_printf(a, "%s/licenses/%s", distinfo, rel), path,
		        (uint64_t)st.size, false);
	}
	if (lic.n)
		qsort(lic.v, lic.n, sizeof(*lic.v), pk_cmp);

	if (!os_mkdir_p(d, o->out_dir))
		return false;
	char *final = os_join(a, o->out_dir, fname);
	wheel_tmp_sweep(a, final, started);
	struct wheel_writer *w =
	    wheel_writer_begin(a, d, final, o->compression, o->threads, o->source_date_epoch);
	if (!w)
		return false;
	bool ok = true;
	for (size_t i = 0; ok && i < files.n; i++)
		ok = wheel_writer_add_file(w, files.v[i].name, files.v[i].path, files.v[i].size,
		                           files.v[i].exec);
	/* Byte order of the names: METADATA, WHEEL, entry_points.txt, licenses/..., RECORD. */
	ok = ok &&
	     wheel_writer_add_mem(w, arena_printf(a, "%s/METADATA", distinfo), md, md_len, NULL);
	ok = ok && wheel_writer_add_mem(w, arena_printf(a, "%s/WHEEL", distinfo), wheel,
	                                strlen(wheel), NULL);
	if (ok && eps)
		ok = wheel_writer_add_mem(w, arena_printf(a, "%s/entry_points.txt", distinfo), eps,
		                          strlen(eps), NULL);
	for (size_t i = 0; ok && i < lic.n; i++)
		ok = wheel_writer_add_file(w, lic.v[i].name, lic.v[i].path, lic.v[i].size, false);
	ok = ok && wheel_writer_add_record(w, arena_printf(a, "%s/RECORD", distinfo), NULL);
	if (!ok) {
		wheel_writer_abort(w);
		return false;
	}
	if (!wheel_writer_commit(w))
		return false;
	*out_path = final;
	return true;
}
