/* index.c: writes a static simple repository for a dist dir: PEP 503 HTML and PEP 691 JSON
 * (api-version 1.1), PEP 658/714 .metadata sidecars, one sub-index per local variant. */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "packager/index.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/os-file.h"
#include "base/os-tmp.h"
#include "base/strbuf.h"
#include "packager/audit.h"
#include "standards/digest.h"
#include "standards/json_values.h"
#include "standards/metadata.h"
#include "standards/tags.h"
#include "standards/version.h"
#include "standards/wheel_read.h"

/* Marks a directory as written by cuwheel index, so replacing it never removes anything else. */
#define INDEX_MARKER ".cuwheel-index"
#define INDEX_API    "1.1"
enum { INDEX_METADATA_MAX = 16 << 20 };

/* Percent-encodes everything but A-Z a-z 0-9 . _ ~ - (so '+' becomes %2B). */
static char *index_url_escape(struct arena *a, const char *s)
{
	struct strbuf sb = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("._~-", *p))
			sb_putc(&sb, (char)*p);
		else
			sb_printf(&sb, "%%%02X", *p);
	}
	return sb_to_arena(&sb, a);
}

/* Escapes & < > " ' for HTML text and attribute values. */
static char *index_html_escape(struct arena *a, const char *s)
{
	struct strbuf sb = {0};
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '&':
			sb_puts(&sb, "&amp;");
			break;
		case '<':
			sb_puts(&sb, "&lt;");
			break;
		case '>':
			sb_puts(&sb, "&gt;");
			break;
		case '"':
			sb_puts(&sb, "&quot;");
			break;
		case '\'':
			sb_puts(&sb, "&#x27;");
			break;
		default:
			sb_putc(&sb, *p);
		}
	}
	return sb_to_arena(&sb, a);
}

/* Reads one wheel: its name, METADATA (agreeing with the name) and hashes; the audit gate
 * (told of o's libraries) appends to o's audit_trace (NULL: none). */
static bool read_wheel(struct arena *a, struct diag *d, const char *path, const char *filename,
                       const struct index_opts *o, struct index_file *f)
{
	struct wheel_name wn;
	const char *err;
	if (!wheel_filename_parse(a, filename, &wn, &err)) {
		diag_path(d, DIAG_ERROR, path, "refused: not a valid wheel file name: %s", err);
		return false;
	}
	for (const char *p = filename; *p; p++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+!-",
		            *p)) {
			diag_path(d, DIAG_ERROR, path,
			          "refused: character '%c' in a wheel file name", *p);
			return false;
		}
	}
	struct os_stat st;
	if (!os_stat(path, &st) || st.kind != OS_KIND_FILE) {
		diag_path(d, DIAG_ERROR, path, "refused: not a regular file");
		return false;
	}
	struct zip_reader r = {0};
	if (!zip_reader_open(a, d, path, NULL, &r))
		return false;
	const struct zip_member *m = NULL;
	const char *names[] = {wn.distribution, wn.distribution_as_written};
	for (size_t i = 0; i < 2 && !m; i++)
		m = zip_reader_find(
		    &r, arena_printf(a, "%s-%s.dist-info/METADATA", names[i], wn.version));
	char *meta = NULL;
	size_t mlen = 0;
	bool ok = true;
	if (!m) {
		diag_path(d, DIAG_ERROR, path, "refused: no %s-%s.dist-info/METADATA in the wheel",
		          wn.distribution, wn.version);
		ok = false;
	} else {
		/* An index publishes the wheel: every member must decompress to what RECORD says,
		 * or pip/uv would fetch a corrupt or tampered file that the index vouches for. */
		size_t dl = strlen(m->name) - strlen("METADATA");
		ok = zip_reader_read(a, d, &r, m, INDEX_METADATA_MAX, &meta, &mlen) &&
		     wheel_verify_record(a, d, &r,
		                         arena_printf(a, "%.*s%s", (int)dl, m->name, "RECORD"));
	}
	zip_reader_close(&r);
	if (!ok)
		return false;

	const char *name = metadata_header(a, meta, mlen, "Name");
	const char *ver = metadata_header(a, meta, mlen, "Version");
	struct pep440 v;
	if (!name || !ver) {
		diag_path(d, DIAG_ERROR, path, "refused: METADATA lacks a %s header",
		          name ? "Version" : "Name");
		return false;
	}
	if (!name_is_valid(name) ||
	    strcmp(name_normalize(a, name), name_normalize(a, wn.distribution))) {
		diag_path(d, DIAG_ERROR, path,
		          "refused: METADATA Name '%s' does not match the file name's '%s'", name,
		          wn.distribution);
		return false;
	}
	if (!pep440_parse(a, ver, &v, &err) || strcmp(pep440_str(a, &v), wn.version)) {
		diag_path(d, DIAG_ERROR, path,
		          "refused: METADATA Version '%s' does not match the file name's '%s'", ver,
		          wn.version);
		return false;
	}
	/* Whatever `cuwheel audit` refuses, the index does not publish: one verdict. */
	if (!audit_gate(a, d, path, "publish", o->libraries, o->audit_trace))
		return false;
	f->path = path;
	f->filename = filename;
	f->project = name_normalize(a, name);
	f->display_name = name;
	f->version = wn.version;
	f->local = v.local;
	f->requires_python = metadata_header(a, meta, mlen, "Requires-Python");
	f->metadata = meta;
	f->metadata_len = mlen;
	mem_sha256_hex(meta, mlen, f->metadata_sha256);
	const char *hex = file_sha256_hex(a, d, path, &f->size);
	if (!hex)
		return false;
	memcpy(f->sha256, hex, sizeof(f->sha256));
	return true;
}

static int file_cmp(const void *x, const void *y)
{
	const struct index_file *p = x, *q = y;
	int c = strcmp(p->project, q->project);
	return c ? c : strcmp(p->filename, q->filename);
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Puts the wheel at dst: a hard link when allowed and possible, else a copy. */
static bool place_wheel(struct arena *a, struct diag *d, const struct index_file *f,
                        const char *dst, bool copy)
{
	if (!copy && os_link(f->path, dst))
		return true;
	struct source src;
	if (!os_read_file(a, d, f->path, &src))
		return false;
	char hex[65];
	mem_sha256_hex(src.text, src.len, hex);
	if (strcmp(hex, f->sha256)) {
		diag_path(d, DIAG_ERROR, f->path, "changed while the index was being written");
		return false;
	}
	return os_write_atomic(d, dst, src.text, src.len, 0644);
}

static bool write_text(struct diag *d, const char *path, const char *text)
{
	return os_write_atomic(d, path, text, strlen(text), 0644);
}

static bool write_json(struct arena *a, struct diag *d, const char *path, json_t *j)
{
	char *s = json_dump_text(a, j, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(j);
	if (!s) {
		diag_path(d, DIAG_ERROR, path, "cannot render JSON");
		return false;
	}
	s = arena_printf(a, "%s\n", s);
	return os_write_atomic(d, path, s, strlen(s), 0644);
}

static const char html_head[] = "<!DOCTYPE html>\n<html>\n  <head>\n"
                                "    <meta name=\"pypi:repository-version\" content=\"" INDEX_API
                                "\">\n    <title>%s</title>\n  </head>\n  <body>\n"
                                "    <h1>%s</h1>\n";
static const char html_tail[] = "  </body>\n</html>\n";

/* Where file f is listed from dir/<project>/, and whether it is stored there: with o->links
 * at LINKS/<its path under the dist dir> (stored nowhere); a wheel of a variant listed in the
 * root tree (local NULL) at ../<variant>/<project>/<file>, where that tree stores it (one
 * copy, its sidecar beside it); else beside the page. */
static const char *file_url(struct arena *a, const struct index_opts *o, const char *local,
                            const struct index_file *f, bool *store)
{
	*store = false;
	if (o->links) {
		const char *slash = strchr(f->rel, '/');
		if (!slash)
			return arena_printf(a, "%s/%s", o->links, index_url_escape(a, f->rel));
		return arena_printf(
		    a, "%s/%s/%s", o->links,
		    index_url_escape(a, arena_strndup(a, f->rel, (size_t)(slash - f->rel))),
		    index_url_escape(a, slash + 1));
	}
	if (!local && f->local)
		return arena_printf(a, "../%s/%s/%s", index_url_escape(a, f->local),
		                    index_url_escape(a, f->project),
		                    index_url_escape(a, f->filename));
	*store = true;
	return index_url_escape(a, f->filename);
}

/* Writes dir/<project>/ for files[0..n) (one project) of the tree of variant local (NULL:
 * the root): wheels and sidecars it stores (file_url), index.html/json. */
static bool write_project(struct arena *a, struct diag *d, const char *dir,
                          const struct index_file *files, size_t n, const struct index_opts *o,
                          const char *local)
{
	const char *pdir = os_join(a, dir, files[0].project);
	if (!os_mkdir_p(d, pdir))
		return false;
	struct strbuf html = {0};
	const char *title = arena_printf(a, "Links for %s", index_html_escape(a, files[0].project));
	sb_printf(&html, html_head, title, title);
	json_t *jfiles = json_array();
	/* versions: unique, in PEP 440 order */
	struct pep440 *vs = arena_calloc(a, n, sizeof(*vs));
	const char **vstr = arena_calloc(a, n, sizeof(*vstr));
	size_t nv = 0;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		const struct index_file *f = &files[i];
		bool store;
		const char *url = file_url(a, o, local, f, &store);
		if (store)
			ok =
			    place_wheel(a, d, f, os_join(a, pdir, f->filename), o->copy) &&
			    os_write_atomic(d, arena_printf(a, "%s/%s.metadata", pdir, f->filename),
			                    f->metadata, f->metadata_len, 0644);
		sb_printf(&html, "    <a href=\"%s#sha256=%s\"", index_html_escape(a, url),
		          f->sha256);
		if (f->requires_python)
			sb_printf(&html, " data-requires-python=\"%s\"",
			          index_html_escape(a, f->requires_python));
		/* PEP 658: the metadata is at the wheel's URL + ".metadata": not beside a link. */
		if (!o->links)
			sb_printf(&html,
			          " data-dist-info-metadata=\"sha256=%s\" "
			          "data-core-metadata=\"sha256=%s\"",
			          f->metadata_sha256, f->metadata_sha256);
		sb_printf(&html, ">%s</a><br>\n", index_html_escape(a, f->filename));
		json_t *jf =
		    json_pack("{s:s, s:s, s:{s:s}, s:I}", "filename", f->filename, "url", url,
		              "hashes", "sha256", f->sha256, "size", (json_int_t)f->size);
		if (!o->links) {
			json_object_set_new(jf, "core-metadata",
			                    json_pack("{s:s}", "sha256", f->metadata_sha256));
			json_object_set_new(jf, "dist-info-metadata",
			                    json_pack("{s:s}", "sha256", f->metadata_sha256));
		}
		if (f->requires_python)
			json_object_set_new(jf, "requires-python", json_string(f->requires_python));
		json_array_append_new(jfiles, jf);

		struct pep440 v;
		const char *err;
		if (!pep440_parse(a, f->version, &v, &err))
			continue;
		size_t k = 0;
		while (k < nv && pep440_cmp(&vs[k], &v) < 0)
			k++;
		if (k < nv && pep440_cmp(&vs[k], &v) == 0)
			continue;
		memmove(&vs[k + 1], &vs[k], (nv - k) * sizeof(*vs));
		memmove(&vstr[k + 1], &vstr[k], (nv - k) * sizeof(*vstr));
		vs[k] = v;
		vstr[k] = f->version;
		nv++;
	}
	sb_puts(&html, html_tail);
	json_t *jv = json_array();
	for (size_t i = 0; i < nv; i++)
		json_array_append_new(jv, json_string(vstr[i]));
	json_t *j = json_pack("{s:{s:s}, s:s, s:o, s:o}", "meta", "api-version", INDEX_API, "name",
	                      files[0].project, "versions", jv, "files", jfiles);
	if (ok)
		ok = write_text(d, os_join(a, pdir, "index.html"), sb_str(&html)) &&
		     write_json(a, d, os_join(a, pdir, "index.json"), j);
	else
		json_decref(j);
	sb_release(&html);
	return ok;
}

/* Writes one simple index at dir for the files whose local label is `local` (NULL: all). */
static bool write_tree(struct arena *a, struct diag *d, const char *dir,
                       const struct index_summary *s, const char *local, const struct index_opts *o)
{
	if (!os_mkdir_p(d, dir))
		return false;
	struct strbuf html = {0};
	sb_printf(&html, html_head, "Simple index", "Simple index");
	json_t *projects = json_array();
	bool ok = true;
	struct index_file *sel = arena_calloc(a, s->n_files, sizeof(*sel));
	for (size_t i = 0; i < s->n_files && ok;) {
		size_t e = i;
		while (e < s->n_files && !strcmp(s->files[e].project, s->files[i].project))
			e++;
		size_t n = 0;
		for (size_t k = i; k < e; k++)
			if (!local || (s->files[k].local && !strcmp(s->files[k].local, local)))
				sel[n++] = s->files[k];
		i = e;
		if (!n)
			continue;
		ok = write_project(a, d, dir, sel, n, o, local);
		sb_printf(&html, "    <a href=\"%s/\">%s</a><br>\n",
		          index_url_escape(a, sel[0].project),
		          index_html_escape(a, sel[0].display_name));
		json_array_append_new(projects, json_pack("{s:s}", "name", sel[0].display_name));
	}
	sb_puts(&html, html_tail);
	json_t *j =
	    json_pack("{s:{s:s}, s:o}", "meta", "api-version", INDEX_API, "projects", projects);
	if (ok)
		ok = write_text(d, os_join(a, dir, "index.html"), sb_str(&html)) &&
		     write_json(a, d, os_join(a, dir, "index.json"), j);
	else
		json_decref(j);
	sb_release(&html);
	return ok;
}

/* Swaps the finished tree `fresh` in at site; the old site (if any) ends up at *old. */
static bool swap_in(struct arena *a, struct diag *d, const char *fresh, const char *site,
                    const char *parent, const char *base, char **old)
{
	*old = NULL;
	if (!os_exists(site)) {
		if (os_rename(fresh, site))
			return true;
		diag_errno(d, site, "cannot rename the new index into place at");
		return false;
	}
#ifdef RENAME_EXCHANGE
	/* One atomic step: readers see the old tree or the new one, never no tree. */
	if (renameat2(AT_FDCWD, fresh, AT_FDCWD, site, RENAME_EXCHANGE) == 0) {
		*old = (char *)fresh;
		return true;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
		diag_errno(d, site, "cannot swap the new index in at");
		return false;
	}
#endif
	/* Two renames: a reader arriving between them finds no site for an instant. */
	char *aside = arena_printf(a, "%s/.%s.old.XXXXXX", parent, base);
	if (!mkdtemp(aside)) {
		diag_errno(d, aside, "cannot create");
		return false;
	}
	if (!os_rename(site, aside)) {
		diag_errno(d, site, "cannot move the old index aside");
		rmdir(aside);
		return false;
	}
	if (!os_rename(fresh, site)) {
		diag_errno(d, site, "cannot rename the new index into place at");
		os_rename(aside, site);
		return false;
	}
	os_tmp_register_dir(aside); /* only now: before, it held the only copy of the site */
	*old = aside;
	return true;
}

/* Refuses a site that something other than cuwheel index wrote, or one holding the dist. */
static bool site_check(struct arena *a, struct diag *d, const char *site, const char *dist)
{
	char *rd = os_realpath(a, dist);
	char *rs = os_exists(site) ? os_realpath(a, site) : NULL;
	if (rd && rs) {
		size_t n = strlen(rs);
		if (!strncmp(rd, rs, n) && (rd[n] == '/' || rd[n] == '\0')) {
			diag_path(d, DIAG_ERROR, site,
			          "refused: the dist dir %s is inside the site", dist);
			return false;
		}
	}
	if (!os_output_check(d, site, OS_OUT_TREE))
		return false;
	if (!os_exists(site))
		return true;
	struct strv entries = {0};
	os_list_dir(a, site, &entries);
	if (entries.n && !os_exists(os_join(a, site, INDEX_MARKER))) {
		diag_path(d, DIAG_ERROR, site,
		          "refused: not empty and not written by cuwheel index (no %s): it would "
		          "be replaced as a whole",
		          INDEX_MARKER);
		return false;
	}
	return true;
}

bool index_write(struct arena *a, struct diag *d, const struct index_opts *o,
                 struct index_summary *out)
{
	memset(out, 0, sizeof(*out));
	struct strv names = {0};
	if (!os_list_dir(a, o->dist_dir, &names)) {
		diag_errno(d, o->dist_dir, "cannot list");
		return false;
	}
	/* The wheels, and those of each subdirectory (one per release), by path under DIST. */
	struct strv rels = {0};
	for (size_t i = 0; i < names.n; i++) {
		const char *nm = names.v[i];
		struct strv sub = {0};
		if (nm[0] != '.' && os_is_dir(os_join(a, o->dist_dir, nm)) &&
		    os_list_dir(a, os_join(a, o->dist_dir, nm), &sub))
			for (size_t k = 0; k < sub.n; k++)
				strv_push(a, &rels, arena_printf(a, "%s/%s", nm, sub.v[k]));
		else
			strv_push(a, &rels, nm);
	}
	struct index_file *files = arena_calloc(a, rels.n ? rels.n : 1, sizeof(*files));
	size_t n = 0;
	bool ok = true;
	for (size_t i = 0; i < rels.n; i++) {
		const char *rel = rels.v[i], *nm = strrchr(rel, '/');
		nm = nm ? nm + 1 : rel;
		size_t l = strlen(nm);
		if (nm[0] == '.' || l < 4 || strcmp(nm + l - 4, ".whl"))
			continue;
		for (size_t k = 0; k < n && ok; k++)
			if (!strcmp(files[k].filename, nm)) {
				diag_path(d, DIAG_ERROR, os_join(a, o->dist_dir, rel),
				          "refused: %s is also %s", nm,
				          os_join(a, o->dist_dir, files[k].rel));
				ok = false;
			}
		if (ok && read_wheel(a, d, os_join(a, o->dist_dir, rel), nm, o, &files[n]))
			files[n++].rel = rel;
		else
			ok = false;
	}
	if (!ok)
		return false;
	if (!n) {
		diag_path(d, DIAG_ERROR, o->dist_dir, "no wheels to index");
		out->empty = true;
		return false;
	}
	qsort(files, n, sizeof(*files), file_cmp);
	out->files = files;
	out->n_files = n;
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(files[i].project, files[i - 1].project))
			out->n_projects++;
		if (files[i].local && !strv_contains(&out->variants, files[i].local))
			strv_push(a, &out->variants, files[i].local);
	}
	if (out->variants.n) /* qsort(NULL, 0, ...) is undefined (UBSan: nonnull argument) */
		qsort(out->variants.v, out->variants.n, sizeof(char *), str_cmp);
	for (size_t v = 0; v < out->variants.n; v++) {
		for (size_t i = 0; i < n; i++) {
			if (!strcmp(files[i].project, out->variants.v[v])) {
				diag_path(d, DIAG_ERROR, files[i].path,
				          "refused: project '%s' has the name of the variant "
				          "sub-index %s/",
				          files[i].project, out->variants.v[v]);
				return false;
			}
		}
	}

	char *site = os_abspath(a, o->site_dir);
	size_t sl = strlen(site);
	while (sl > 1 && site[sl - 1] == '/')
		site[--sl] = '\0';
	char *slash = strrchr(site, '/');
	char *parent = slash == site ? "/" : arena_strndup(a, site, (size_t)(slash - site));
	const char *base = slash + 1;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		diag_path(d, DIAG_ERROR, o->site_dir, "refused: name the site directory itself");
		return false;
	}
	if (!site_check(a, d, site, o->dist_dir) || !os_mkdir_p(d, parent))
		return false;

	char *fresh = arena_printf(a, "%s/.%s.new.XXXXXX", parent, base);
	/* A signal removes it (and, once swapped in, the old site that it then names). */
	if (!os_mkdtemp_registered(d, fresh))
		return false;
	os_chmod(fresh, 0755);
	ok = write_tree(a, d, fresh, out, NULL, o);
	for (size_t v = 0; ok && v < out->variants.n; v++)
		ok = write_tree(a, d, os_join(a, fresh, out->variants.v[v]), out,
		                out->variants.v[v], o);
	if (ok)
		ok = write_text(d, os_join(a, fresh, INDEX_MARKER), "cuwheel index 1\n");
	char *old = NULL;
	if (ok)
		ok = swap_in(a, d, fresh, site, parent, base, &old);
	struct diag quiet = {0}; /* the failure that stopped the update is already reported */
	if (!ok)
		os_rm_rf(&quiet, fresh);
	else if (old && !os_rm_rf(&quiet, old))
		diag_path(
		    d, DIAG_WARNING, old,
		    "the previous index was replaced but cannot be removed; delete it by hand");
	os_tmp_forget(fresh);
	if (old)
		os_tmp_forget(old);
	return ok;
}
