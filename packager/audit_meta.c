/* audit_meta.c: file name <-> .dist-info <-> METADATA <-> WHEEL consistency, and RECORD checked
 * against every member's bytes. */
#include <ctype.h>
#include <openssl/evp.h>
#include <string.h>
#include <strings.h>

#include "packager/audit_int.h"
#include "standards/entry_points.h"
#include "standards/metadata.h"
#include "standards/record.h"
#include "standards/version.h"

/* Reads a member through the hardened reader; its complaints become findings. */
static void capture(void *user, const struct diag_msg *m)
{
	struct audit_ctx *c = user;
	audit_add(c, m->level == DIAG_WARNING ? AUDIT_WARNING : AUDIT_ERROR, "zip-read", NULL, NULL,
	          "%s", m->text);
}

static bool read_member(struct audit_ctx *c, struct arena *a, const struct zip_member *m,
                        char **data, size_t *len)
{
	struct diag d = {.emit = capture, .user = c};
	return zip_reader_read(a, &d, &c->zr, m, c->zr.limits.max_member_size, data, len);
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Collects the normalised names of Requires-Dist entries that are not behind an extra. */
static void read_requires(struct audit_ctx *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le == p || (le == p + 1 && *p == '\r'))
			break; /* headers end at the first blank line */
		if ((size_t)(le - p) > 14 && strncasecmp(p, "Requires-Dist:", 14) == 0) {
			const char *s = p + 14;
			while (s < le && (*s == ' ' || *s == '\t'))
				s++;
			const char *n = s;
			while (s < le &&
			       (isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.'))
				s++;
			const char *semi = memchr(s, ';', (size_t)(le - s));
			bool extra = false;
			if (semi) {
				char *marker = arena_strndup(c->a, semi, (size_t)(le - semi));
				extra = strstr(marker, "extra") != NULL;
			}
			if (s > n && !extra) {
				char *raw = arena_strndup(c->a, n, (size_t)(s - n));
				strv_push(c->a, &c->requires, name_normalize(c->a, raw));
			}
		}
		p = nl ? nl + 1 : end;
	}
}

static void check_metadata(struct audit_ctx *c, const char *mpath)
{
	const struct zip_member *m = zip_reader_find(&c->zr, mpath);
	char *text;
	size_t len;
	if (!m) {
		audit_add(c, AUDIT_ERROR, "metadata-missing", mpath, NULL, "METADATA is missing");
		return;
	}
	if (!read_member(c, c->a, m, &text, &len))
		return;
	read_requires(c, text, len);
	if (!c->name_ok)
		return;
	char *name = metadata_header(c->a, text, len, "Name");
	char *ver = metadata_header(c->a, text, len, "Version");
	if (!name || !ver) {
		audit_add(c, AUDIT_ERROR, "metadata-fields", mpath, NULL,
		          "METADATA lacks a %s header", name ? "Version" : "Name");
		return;
	}
	char *esc = name_wheel_escape(c->a, name);
	if (strcmp(esc, c->wn.distribution) != 0)
		audit_add(c, AUDIT_ERROR, "metadata-name", mpath, NULL,
		          "METADATA Name '%s' does not match the file name's '%s'", name,
		          c->wn.distribution);
	struct pep440 v;
	const char *err;
	if (!pep440_parse(c->a, ver, &v, &err))
		audit_add(c, AUDIT_ERROR, "metadata-version", mpath, NULL,
		          "METADATA Version '%s' is not a PEP 440 version: %s", ver, err);
	else if (strcmp(pep440_str(c->a, &v), c->wn.version) != 0)
		audit_add(c, AUDIT_ERROR, "metadata-version", mpath, NULL,
		          "METADATA Version '%s' does not match the file name's '%s'", ver,
		          c->wn.version);
}

static int tag_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void check_wheel_file(struct audit_ctx *c, const char *wpath)
{
	const struct zip_member *m = zip_reader_find(&c->zr, wpath);
	char *text;
	size_t len;
	if (!m) {
		audit_add(c, AUDIT_ERROR, "wheel-missing", wpath, NULL, "WHEEL is missing");
		return;
	}
	if (!read_member(c, c->a, m, &text, &len))
		return;
	char *wv = metadata_header(c->a, text, len, "Wheel-Version");
	if (!wv || strncmp(wv, "1.", 2) != 0)
		audit_add(c, AUDIT_ERROR, "wheel-version", wpath, NULL,
		          "Wheel-Version is %s (expected 1.x)", wv ? wv : "missing");
	char *pl = metadata_header(c->a, text, len, "Root-Is-Purelib");
	if (!pl || (strcasecmp(pl, "true") != 0 && strcasecmp(pl, "false") != 0))
		audit_add(c, AUDIT_ERROR, "wheel-purelib", wpath, NULL,
		          "Root-Is-Purelib is %s (expected true or false)", pl ? pl : "missing");
	else
		c->purelib = strcasecmp(pl, "true") == 0;
	/* Tag lines: each header line "Tag: x-y-z". */
	struct strv tags = {0};
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > 4 && strncasecmp(p, "Tag:", 4) == 0) {
			const char *s = p + 4;
			while (s < le && *s == ' ')
				s++;
			const char *e = le;
			while (e > s && (e[-1] == '\r' || e[-1] == ' '))
				e--;
			strv_push(c->a, &tags, arena_strndup(c->a, s, (size_t)(e - s)));
		}
		p = nl ? nl + 1 : end;
	}
	if (!c->name_ok)
		return;
	struct strv want = {0};
	for (size_t i = 0; i < c->wn.n_tags; i++)
		strv_push(c->a, &want,
		          arena_printf(c->a, "%s-%s-%s", c->wn.tags[i].python, c->wn.tags[i].abi,
		                       c->wn.tags[i].platform));
	if (tags.n)
		qsort(tags.v, tags.n, sizeof *tags.v, tag_cmp);
	if (want.n)
		qsort(want.v, want.n, sizeof *want.v, tag_cmp);
	bool same = tags.n == want.n;
	for (size_t i = 0; same && i < tags.n; i++)
		same = strcmp(tags.v[i], want.v[i]) == 0;
	if (!same) {
		struct strbuf sb = {0}, sw = {0};
		for (size_t i = 0; i < tags.n; i++)
			sb_printf(&sb, "%s%s", i ? " " : "", tags.v[i]);
		for (size_t i = 0; i < want.n; i++)
			sb_printf(&sw, "%s%s", i ? " " : "", want.v[i]);
		audit_add(c, AUDIT_ERROR, "wheel-tags", wpath, NULL,
		          "WHEEL's Tag lines (%s) are not the file name's tags (%s)",
		          tags.n ? sb_str(&sb) : "none", sb_str(&sw));
		sb_release(&sb);
		sb_release(&sw);
	}
}

void audit_names(struct audit_ctx *c)
{
	const char *err;
	c->name_ok = wheel_filename_parse(c->a, c->r->wheel, &c->wn, &err);
	if (!c->name_ok)
		audit_add(c, AUDIT_ERROR, "file-name", NULL, NULL, "bad wheel file name: %s", err);
	struct strv dirs = {0};
	for (size_t i = 0; i < c->zr.n_members; i++) {
		const char *n = c->zr.members[i].name;
		const char *slash = strchr(n, '/');
		if (!slash || slash - n < 11 || strncmp(slash - 10, ".dist-info", 10) != 0)
			continue;
		char *top = arena_strndup(c->a, n, (size_t)(slash - n));
		if (!strv_contains(&dirs, top))
			strv_push(c->a, &dirs, top);
	}
	if (dirs.n != 1) {
		struct strbuf sb = {0};
		for (size_t i = 0; i < dirs.n; i++)
			sb_printf(&sb, "%s%s", i ? ", " : "", dirs.v[i]);
		audit_add(c, AUDIT_ERROR, "dist-info-count", NULL, NULL,
		          "the wheel must hold exactly one .dist-info directory, it holds %zu%s%s",
		          dirs.n, dirs.n ? ": " : "", sb_str(&sb));
		sb_release(&sb);
		if (dirs.n == 0)
			return;
	}
	c->distinfo = dirs.v[0];
	if (c->name_ok) {
		char *want =
		    arena_printf(c->a, "%s-%s.dist-info", c->wn.distribution, c->wn.version);
		if (strcmp(want, c->distinfo) != 0)
			audit_add(c, AUDIT_ERROR, "dist-info-name", c->distinfo, NULL,
			          "the .dist-info directory should be called %s to match the file "
			          "name",
			          want);
	}
	check_metadata(c, arena_printf(c->a, "%s/METADATA", c->distinfo));
	check_wheel_file(c, arena_printf(c->a, "%s/WHEEL", c->distinfo));
	const char *eppath = arena_printf(c->a, "%s/entry_points.txt", c->distinfo);
	const struct zip_member *ep = zip_reader_find(&c->zr, eppath);
	char *eptext;
	size_t eplen;
	if (ep && read_member(c, c->a, ep, &eptext, &eplen)) {
		/* pip reads it with configparser: a bad line breaks the install, a smuggled
		 * section adds scripts nobody declared. */
		const char *why = entry_points_txt_problem(c->a, eptext, eplen);
		if (why)
			audit_add(
			    c, AUDIT_ERROR, "entry-points", eppath, NULL,
			    "entry_points.txt is not valid (the entry-points specification): %s",
			    why);
	}
	for (size_t i = 0; i < 2; i++) {
		const char *f =
		    arena_printf(c->a, "%s/%s", c->distinfo, i ? "REQUESTED" : "INSTALLER");
		if (zip_reader_find(&c->zr, f))
			audit_add(c, AUDIT_WARNING, "dist-info-installer", f, NULL,
			          "%s is written by installers and must not be in a wheel",
			          basename_of(f));
	}
}

static char *digest_of(struct arena *a, const char *algo, const void *data, size_t len)
{
	const EVP_MD *md = strcmp(algo, "sha256") == 0   ? EVP_sha256()
	                   : strcmp(algo, "sha384") == 0 ? EVP_sha384()
	                   : strcmp(algo, "sha512") == 0 ? EVP_sha512()
	                                                 : NULL;
	unsigned char out[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (!md || !EVP_Digest(data, len, out, &n, md, NULL))
		return NULL;
	return arena_printf(a, "%s=%s", algo, record_b64url(a, out, n));
}

static void capture_record(void *user, const struct diag_msg *m)
{
	struct audit_ctx *c = user;
	const char *hint = strstr(m->text, "hash") ? "RECORD must use sha256 (md5 and sha1 are "
	                                             "refused)"
	                                           : NULL;
	audit_add(c, AUDIT_ERROR, "record-format", m->path, hint, "%s", m->text);
}

void audit_record(struct audit_ctx *c)
{
	if (!c->distinfo)
		return;
	const char *rpath = arena_printf(c->a, "%s/RECORD", c->distinfo);
	const struct zip_member *rm = zip_reader_find(&c->zr, rpath);
	if (!rm) {
		audit_add(c, AUDIT_ERROR, "record-missing", rpath, NULL, "RECORD is missing");
		return;
	}
	char *text;
	size_t len;
	if (!read_member(c, c->a, rm, &text, &len))
		return;
	struct record rec = {0};
	struct diag d = {.emit = capture_record, .user = c};
	if (!record_parse(c->a, &d, rpath, text, len, &rec))
		return;
	/* Rows: each path once, each naming a member. */
	const char **paths = arena_calloc(c->a, rec.n ? rec.n : 1, sizeof *paths);
	for (size_t i = 0; i < rec.n; i++)
		paths[i] = rec.v[i].path;
	qsort(paths, rec.n, sizeof *paths, tag_cmp);
	for (size_t i = 1; i < rec.n; i++)
		if (strcmp(paths[i - 1], paths[i]) == 0)
			audit_add(c, AUDIT_ERROR, "record-duplicate", paths[i], NULL,
			          "RECORD lists this file more than once");
	for (size_t i = 0; i < rec.n; i++)
		if (!zip_reader_find(&c->zr, rec.v[i].path))
			audit_add(c, AUDIT_ERROR, "record-extra", rec.v[i].path, NULL,
			          "RECORD lists a file that is not in the wheel");
	for (size_t i = 0; i < c->zr.n_members; i++) {
		const struct zip_member *m = &c->zr.members[i];
		if (m->is_dir)
			continue;
		const struct record_row *row = record_find(&rec, m->name);
		if (m == rm) {
			if (row && (row->hash || row->has_size))
				audit_add(c, AUDIT_ERROR, "record-self", m->name, NULL,
				          "RECORD's own row must be '%s,,'", m->name);
			continue;
		}
		size_t bl = strlen(rpath);
		if (!row && strncmp(m->name, rpath, bl) == 0 &&
		    (strcmp(m->name + bl, ".jws") == 0 || strcmp(m->name + bl, ".p7s") == 0))
			continue; /* signatures may be left out */
		if (!row) {
			audit_add(c, AUDIT_ERROR, "record-missing-file", m->name, NULL,
			          "file is not listed in RECORD");
			continue;
		}
		if (!row->hash || !row->has_size) {
			audit_add(c, AUDIT_ERROR, "record-format", m->name, NULL,
			          "RECORD row has no %s", row->hash ? "size" : "hash");
			continue;
		}
		struct arena tmp = {0};
		char *data;
		size_t dlen;
		if (read_member(c, &tmp, m, &data, &dlen)) {
			audit_scan_member(c, i, data, dlen);
			char algo[8] = {0};
			memcpy(algo, row->hash, 6);
			char *got = digest_of(&tmp, algo, data, dlen);
			if (!got || strcmp(got, row->hash) != 0)
				audit_add(c, AUDIT_ERROR, "record-hash", m->name, NULL,
				          "RECORD hash %s does not match the contents (%s)",
				          row->hash, got ? got : "?");
			if (row->size != dlen)
				audit_add(
				    c, AUDIT_ERROR, "record-size", m->name, NULL,
				    "RECORD size %llu does not match the contents (%zu bytes)",
				    (unsigned long long)row->size, dlen);
		}
		arena_free(&tmp);
	}
}
