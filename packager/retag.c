/* retag.c: wheel_retag: new local label / tags / build tag, payload copied still compressed. */
#include "packager/retag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zip.h>

#include "base/os-file.h"
#include "packager/audit.h"
#include "standards/metadata.h"
#include "standards/record.h"
#include "standards/tags.h"
#include "standards/version.h"
#include "packager/wheel.h"

enum { RT_META_MAX = 64 << 20 };

struct rt_hash {
	EVP_MD_CTX *ctx;
};

static bool rt_hash_cb(void *user, const void *buf, size_t n)
{
	struct rt_hash *h = user;
	return EVP_DigestUpdate(h->ctx, buf, n) == 1;
}

/* Decompresses member m (libzip checks its CRC, we check its size) and compares its sha256
 * with RECORD's row. Returns the hash string or NULL + diagnostic. */
static const char *rt_verify(struct arena *a, struct diag *d, struct zip_reader *r,
                             const struct zip_member *m, const struct record_row *row)
{
	if (!row || !row->hash) {
		diag_path(d, DIAG_ERROR, r->path, "member '%s' is not listed in RECORD with a hash",
		          m->name);
		return NULL;
	}
	if (strncmp(row->hash, "sha256=", 7) != 0) {
		diag_path(d, DIAG_ERROR, r->path,
		          "member '%s': RECORD uses '%.7s', cuwheel verifies sha256 only", m->name,
		          row->hash);
		return NULL;
	}
	struct rt_hash h = {EVP_MD_CTX_new()};
	if (!h.ctx || EVP_DigestInit_ex(h.ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(h.ctx);
		diag_path(d, DIAG_ERROR, r->path, "cannot start sha256");
		return NULL;
	}
	bool ok = zip_reader_stream(d, r, m, rt_hash_cb, &h);
	unsigned char md[32];
	unsigned mdlen = 0;
	ok = ok && EVP_DigestFinal_ex(h.ctx, md, &mdlen) == 1;
	EVP_MD_CTX_free(h.ctx);
	if (!ok)
		return NULL;
	const char *got = record_hash_str(a, md);
	if (strcmp(got, row->hash) != 0) {
		diag_path(d, DIAG_ERROR, r->path,
		          "member '%s' does not match RECORD (hash %s, RECORD says %s)", m->name,
		          got, row->hash);
		return NULL;
	}
	if (row->has_size && row->size != m->size) {
		diag_path(d, DIAG_ERROR, r->path,
		          "member '%s' does not match RECORD (size %llu bytes, RECORD says %llu)",
		          m->name, (unsigned long long)m->size, (unsigned long long)row->size);
		return NULL;
	}
	return got;
}

/* Returns the member's name with the old .dist-info / .data prefix replaced. */
static const char *rt_rename(struct arena *a, const char *name, const char *old_di,
                             const char *new_di, const char *old_data, const char *new_data)
{
	size_t l = strlen(old_di);
	if (strncmp(name, old_di, l) == 0 && name[l] == '/')
		return arena_printf(a, "%s%s", new_di, name + l);
	l = strlen(old_data);
	if (strncmp(name, old_data, l) == 0 && name[l] == '/')
		return arena_printf(a, "%s%s", new_data, name + l);
	return name;
}

static bool rt_write(struct arena *a, struct diag *d, struct zip_reader *r, const char *final,
                     const char **names, const char **hashes, const char *di_old,
                     const char *new_di, const char *wheel, size_t wheel_len, const char *md,
                     size_t md_len)
{
	struct wheel_writer *w = wheel_writer_begin(a, d, final, 6, 1, -1);
	if (!w)
		return false;
	const char *rec_old = arena_printf(a, "%s/RECORD", di_old);
	const char *wheel_old = arena_printf(a, "%s/WHEEL", di_old);
	const char *md_old = arena_printf(a, "%s/METADATA", di_old);
	const struct zip_member *rec = zip_reader_find(r, rec_old);
	bool ok = true;
	for (size_t i = 0; ok && i < r->n_members; i++) {
		const struct zip_member *m = &r->members[i];
		if (m->is_dir || m == rec)
			continue;
		if (strcmp(m->name, wheel_old) == 0) {
			ok = wheel_writer_add_mem(w, names[i], wheel, wheel_len, &m->mtime);
		} else if (strcmp(m->name, md_old) == 0) {
			ok = wheel_writer_add_mem(w, names[i], md, md_len, &m->mtime);
		} else {
			zip_uint8_t opsys;
			zip_uint32_t attrs;
			if (zip_file_get_external_attributes(r->za, m->index, 0, &opsys, &attrs)) {
				opsys = ZIP_OPSYS_UNIX;
				attrs = (0100644u) << 16;
			}
			ok = wheel_writer_add_copy(w, names[i], r->za, m->index, m->method, opsys,
			                           attrs, m->mtime, hashes[i], m->size);
		}
	}
	ok = ok && wheel_writer_add_record(w, arena_printf(a, "%s/RECORD", new_di), &rec->mtime);
	if (!ok) {
		wheel_writer_abort(w);
		return false;
	}
	return wheel_writer_commit(w);
}

/* True when di_old is the wheel's only .dist-info directory; else false + diagnostic naming the
 * member of a second one. */
static bool rt_one_dist_info(struct diag *d, const char *wheel_path, const struct zip_reader *r,
                             const char *di_old)
{
	for (size_t i = 0; i < r->n_members; i++) {
		const char *n = r->members[i].name;
		const char *s = strchr(n, '/');
		size_t top = s ? (size_t)(s - n) : strlen(n);
		if (top > 10 && !strncmp(n + top - 10, ".dist-info", 10) &&
		    (top != strlen(di_old) || strncmp(n, di_old, top))) {
			diag_path(d, DIAG_ERROR, wheel_path, "member '%s': a second .dist-info", n);
			return false;
		}
	}
	return true;
}

bool wheel_retag(struct arena *a, struct diag *d, const char *wheel_path,
                 const struct retag_opts *o, const char *out_dir, char **out_path)
{
	const char *slash = strrchr(wheel_path, '/');
	const char *base = slash ? slash + 1 : wheel_path;
	const char *err = NULL;
	struct wheel_name wn;
	if (!wheel_filename_parse(a, base, &wn, &err)) {
		diag_path(d, DIAG_ERROR, wheel_path, "not a wheel file name: %s", err);
		return false;
	}
	if (o->local && o->remove_local) {
		diag_path(d, DIAG_ERROR, wheel_path, "a new local label and removing it conflict");
		return false;
	}
	struct pep440 v;
	if (!pep440_parse(a, wn.version, &v, &err)) {
		diag_path(d, DIAG_ERROR, wheel_path, "version '%s': %s", wn.version, err);
		return false;
	}
	if (o->remove_local)
		v.local = NULL;
	if (o->local) {
		const char *l = pep440_normalize_local(a, o->local, &err);
		if (!l) {
			diag_path(d, DIAG_ERROR, wheel_path, "local label '%s': %s", o->local, err);
			return false;
		}
		v.local = l;
	}
	char *new_ver = pep440_str(a, &v);
	const char *build = o->build ? (o->build[0] ? o->build : NULL) : wn.build;
	const char *py = o->python ? o->python : wn.python;
	const char *abi = o->abi ? o->abi : wn.abi;
	const char *plat = o->platform ? o->platform : wn.platform;
	char *new_name = wheel_filename(a, wn.distribution, new_ver, build, py, abi, plat);
	struct wheel_tag *tags;
	size_t n_tags = wheel_tags_expand(a, py, abi, plat, &tags);
	if (!new_name || !n_tags) {
		diag_path(d, DIAG_ERROR, wheel_path,
		          "invalid new name: tags '%s-%s-%s', build '%s'", py, abi, plat,
		          build ? build : "");
		return false;
	}

	struct zip_reader r;
	if (!zip_reader_open(a, d, wheel_path, o->limits, &r))
		return false;
	bool ok = false;
	const char *di_old = arena_printf(a, "%s-%s.dist-info", wn.distribution, wn.version);
	const char *di_new = arena_printf(a, "%s-%s.dist-info", wn.distribution, new_ver);
	const char *data_old = arena_printf(a, "%s-%s.data", wn.distribution, wn.version);
	const char *data_new = arena_printf(a, "%s-%s.data", wn.distribution, new_ver);
	const struct zip_member *rec = zip_reader_find(&r, arena_printf(a, "%s/RECORD", di_old));
	const struct zip_member *whl = zip_reader_find(&r, arena_printf(a, "%s/WHEEL", di_old));
	const struct zip_member *mdm = zip_reader_find(&r, arena_printf(a, "%s/METADATA", di_old));
	if (!rec || !whl || !mdm) {
		diag_path(d, DIAG_ERROR, wheel_path, "no %s/%s: not a wheel (or misnamed)", di_old,
		          !rec   ? "RECORD"
		          : !whl ? "WHEEL"
		                 : "METADATA");
		goto out;
	}
	if (!rt_one_dist_info(d, wheel_path, &r, di_old))
		goto out;
	char *rec_text, *wheel_text, *md_text;
	size_t rec_len, wheel_len, md_len;
	if (!zip_reader_read(a, d, &r, rec, RT_META_MAX, &rec_text, &rec_len) ||
	    !zip_reader_read(a, d, &r, whl, RT_META_MAX, &wheel_text, &wheel_len) ||
	    !zip_reader_read(a, d, &r, mdm, RT_META_MAX, &md_text, &md_len))
		goto out;
	struct record rows = {0};
	if (!record_parse(a, d, arena_printf(a, "%s: %s", wheel_path, rec->name), rec_text, rec_len,
	                  &rows))
		goto out;
	const char *md_ver = metadata_header(a, md_text, md_len, "Version");
	struct pep440 mv;
	if (!md_ver || !pep440_parse(a, md_ver, &mv, &err) || pep440_cmp(&mv, &v) != 0) {
		struct pep440 ov;
		pep440_parse(a, wn.version, &ov, &err);
		if (!md_ver || !pep440_parse(a, md_ver, &mv, &err) || pep440_cmp(&mv, &ov) != 0) {
			diag_path(d, DIAG_ERROR, wheel_path,
			          "METADATA says Version: %s but the file name says %s",
			          md_ver ? md_ver : "(none)", wn.version);
			goto out;
		}
	}
	/* Every member listed, every row a member, every payload hash right. */
	const char **names = arena_calloc(a, r.n_members + 1, sizeof(*names));
	const char **hashes = arena_calloc(a, r.n_members + 1, sizeof(*hashes));
	for (size_t i = 0; i < r.n_members; i++) {
		const struct zip_member *m = &r.members[i];
		names[i] = rt_rename(a, m->name, di_old, di_new, data_old, data_new);
		if (m->is_dir || m == rec || m == whl || m == mdm)
			continue;
		hashes[i] = rt_verify(a, d, &r, m, record_find(&rows, m->name));
		if (!hashes[i])
			goto out;
	}
	for (size_t i = 0; i < rows.n; i++) {
		if (!zip_reader_find(&r, rows.v[i].path)) {
			diag_path(d, DIAG_ERROR, wheel_path,
			          "RECORD lists '%s', which is not in the wheel", rows.v[i].path);
			goto out;
		}
	}
	/* Whatever else `cuwheel audit` refuses (a WHEEL of another version, tags that are not
	 * the file name's, ...), retag refuses too: one verdict. */
	if (!o->audited && !audit_gate(a, d, wheel_path, "retag", o->libraries, o->audit_trace))
		goto out;
	size_t nw_len, nm_len;
	char *nw = metadata_wheel_retag(a, d, arena_printf(a, "%s: %s", wheel_path, whl->name),
	                                wheel_text, wheel_len, build, tags, n_tags, &nw_len);
	char *nm = nw ? metadata_set_version(a, d, arena_printf(a, "%s: %s", wheel_path, mdm->name),
	                                     md_text, md_len, new_ver, &nm_len)
	              : NULL;
	if (nm && o->torch_requirement)
		nm =
		    metadata_set_requirement(a, d, arena_printf(a, "%s: %s", wheel_path, mdm->name),
		                             nm, nm_len, "torch", o->torch_requirement, &nm_len);
	if (!nm)
		goto out;
	const char *dir = out_dir;
	if (!dir)
		dir = slash ? arena_strndup(a, wheel_path,
		                            (size_t)(slash - wheel_path) + (slash == wheel_path))
		            : ".";
	if (!os_mkdir_p(d, dir))
		goto out;
	char *final = os_join(a, dir, new_name);
	if (!rt_write(a, d, &r, final, names, hashes, di_old, di_new, nw, nw_len, nm, nm_len))
		goto out;
	ok = true;
	*out_path = final;
	if (o->remove_original) {
		char *src_real = os_realpath(a, wheel_path);
		char *dst_real = os_realpath(a, final);
		if (src_real && dst_real && strcmp(src_real, dst_real) != 0 &&
		    !os_unlink(wheel_path)) {
			diag_errno(d, wheel_path, "cannot remove the original");
			ok = false;
		}
	}
out:
	zip_reader_close(&r);
	return ok;
}
