/* wheel_write.c: the zip writer: parallel chunked deflate hashed in the same pass, handed to
 * libzip as already-compressed data, into an atomically renamed temp file. */
#include "packager/wheel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zip.h>
#include <zlib.h>

#include "base/os-file.h"
#include "base/os-sys.h"
#include "base/os-tmp.h"
#include "base/pool.h"
#include "standards/record.h"

/* Members larger than one chunk are deflated in 1 MiB chunks on several threads; each chunk
 * is primed with the 32 KiB before it and ends on a byte-aligned sync flush, so the chunks
 * concatenate into one deflate stream (as pigz does). The output depends on the chunk size
 * only, never on the thread count or scheduling, so wheels stay reproducible. */
enum { ZW_CHUNK = 1 << 20, ZW_DICT = 32768 };

enum zw_kind { ZW_FILE, ZW_MEM, ZW_COPY, ZW_RECORD };

struct zw_chunk {
	unsigned char *out;
	size_t len;
	uint32_t crc;
};

struct zw_member {
	struct wheel_writer *w;
	enum zw_kind kind;
	const char *name;
	const char *path; /* ZW_FILE */
	const void *data; /* ZW_MEM, ZW_RECORD once rendered */
	uint64_t size;    /* uncompressed */
	const char *hash; /* RECORD's "sha256=..." once known */
	zip_error_t err;
	/* while open */
	int fd;
	void *map;
	struct zw_chunk *chunks;
	size_t n_chunks, pos_chunk, pos_off;
	const unsigned char *raw; /* stored: the bytes served */
	uint64_t raw_pos;
	/* results, valid once read */
	bool done;
	uint32_t crc;
	uint64_t comp_size;
};

struct wheel_writer {
	struct arena *a;
	struct diag *d;
	const char *final, *tmp;
	int fd;
	zip_t *za;
	zip_error_t err;
	int level, threads;
	zip_uint16_t dtime, ddate;
	struct zw_member **m;
	size_t n, cap;
	bool reported; /* a diagnostic naming the cause was already emitted */
};

/* ---- deflate ---- */

/* One member's compression as base/pool.h jobs: job 0 hashes the whole input, job 1 + c
 * deflates chunk c into ch[c] (its out stays NULL when that fails). */
struct zw_job {
	const unsigned char *in;
	size_t n;
	int level;
	struct zw_chunk *ch;
	size_t n_chunks;
	unsigned char md[32]; /* job 0's SHA-256 */
	bool hashed;          /* job 0 succeeded */
};

/* Deflates chunk i of j into j->ch[i]; leaves its out NULL on failure. */
static void zw_deflate_chunk(struct zw_job *j, size_t i)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, j->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return;
	size_t off = i * (size_t)ZW_CHUNK;
	size_t len = j->n - off < ZW_CHUNK ? j->n - off : ZW_CHUNK;
	bool last = i + 1 == j->n_chunks;
	unsigned char *out = NULL;
	if (i > 0 && deflateSetDictionary(&zs, j->in + off - ZW_DICT, ZW_DICT) != Z_OK)
		goto done;
	size_t bound = deflateBound(&zs, len) + 64;
	if (!(out = malloc(bound)))
		goto done;
	zs.next_in = (unsigned char *)(j->in + off);
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)bound;
	int rc = deflate(&zs, last ? Z_FINISH : Z_SYNC_FLUSH);
	if ((last ? rc != Z_STREAM_END : rc != Z_OK) || zs.avail_in || !zs.avail_out) {
		free(out);
		goto done;
	}
	j->ch[i].out = out;
	j->ch[i].len = bound - zs.avail_out;
	j->ch[i].crc = (uint32_t)crc32(0, j->in + off, (uInt)len);
done:
	deflateEnd(&zs);
}

/* pool_fn: job 0 hashes, job 1 + c deflates chunk c. */
static void zw_job_run(void *ctx, size_t k)
{
	struct zw_job *j = ctx;
	if (k > 0) {
		zw_deflate_chunk(j, k - 1);
		return;
	}
	unsigned mdlen = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	j->hashed = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) &&
	            EVP_DigestUpdate(md, j->in, j->n) && EVP_DigestFinal_ex(md, j->md, &mdlen);
	EVP_MD_CTX_free(md);
}

/* Hashes in[0..n) and deflates it into m->chunks: up to w->threads threads deflate while one
 * more hashes first and then deflates too. Fills m->crc, comp_size and hash. */
static bool zw_compress(struct zw_member *m, const unsigned char *in, size_t n)
{
	struct wheel_writer *w = m->w;
	struct zw_job j = {.in = in, .n = n, .level = w->level};
	j.n_chunks = n ? (n + ZW_CHUNK - 1) / ZW_CHUNK : 1;
	j.ch = calloc(j.n_chunks, sizeof(*j.ch));
	if (!j.ch)
		return false;
	/* One chunk: no thread is worth starting; this thread hashes, then deflates. */
	size_t workers = j.n_chunks == 1 ? 1 : (size_t)w->threads + 1;
	pool_run(1 + j.n_chunks, workers, zw_job_run, &j);
	m->chunks = j.ch;
	m->n_chunks = j.n_chunks;
	bool ok = j.hashed;
	for (size_t i = 0; i < j.n_chunks; i++)
		ok = ok && j.ch[i].out;
	if (!ok)
		return false;
	uint32_t crc = 0;
	uint64_t comp = 0;
	for (size_t i = 0; i < j.n_chunks; i++) {
		size_t len =
		    n - i * (size_t)ZW_CHUNK < ZW_CHUNK ? n - i * (size_t)ZW_CHUNK : ZW_CHUNK;
		crc = i ? (uint32_t)crc32_combine(crc, j.ch[i].crc, (z_off_t)len) : j.ch[i].crc;
		comp += j.ch[i].len;
	}
	m->crc = crc;
	m->comp_size = comp;
	m->hash = record_hash_str(w->a, j.md);
	return true;
}

static bool zw_hash_only(struct zw_member *m, const unsigned char *in, size_t n)
{
	unsigned char md[32];
	unsigned mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	          EVP_DigestUpdate(ctx, in, n) && EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	if (ok)
		m->hash = record_hash_str(m->w->a, md);
	return ok;
}

static void zw_release(struct zw_member *m)
{
	for (size_t i = 0; i < m->n_chunks; i++)
		free(m->chunks[i].out);
	free(m->chunks);
	m->chunks = NULL;
	m->n_chunks = 0;
	if (m->map) {
		munmap(m->map, m->size);
		m->map = NULL;
	}
	if (m->fd >= 0) {
		close(m->fd);
		m->fd = -1;
	}
}

/* Renders RECORD from every member before m. */
static bool zw_render_record(struct zw_member *m)
{
	struct wheel_writer *w = m->w;
	struct record r = {0};
	for (size_t i = 0; i < w->n && w->m[i] != m; i++) {
		if (!w->m[i]->hash) {
			diag_path(w->d, DIAG_ERROR, w->final,
			          "internal error: RECORD reached before %s was hashed",
			          w->m[i]->name);
			w->reported = true;
			return false;
		}
		struct record_row row = {w->m[i]->name, w->m[i]->hash, w->m[i]->size, true};
		record_add(w->a, &r, row.path, NULL, 0);
		r.v[r.n - 1] = row;
	}
	size_t len;
	m->data = record_render(w->a, &r, m->name, &len);
	m->size = len;
	return true;
}

static bool zw_open(struct zw_member *m)
{
	struct wheel_writer *w = m->w;
	const unsigned char *in = m->data;
	if (m->kind == ZW_FILE) {
		m->fd = open(m->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (m->fd < 0 || fstat(m->fd, &st) != 0) {
			diag_errno(w->d, m->path, "cannot read");
			w->reported = true;
			return false;
		}
		if ((uint64_t)st.st_size != m->size || !S_ISREG(st.st_mode)) {
			diag_path(w->d, DIAG_ERROR, m->path, "changed while it was being packed");
			w->reported = true;
			return false;
		}
		if (m->size) {
			m->map = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, m->fd, 0);
			if (m->map == MAP_FAILED) {
				m->map = NULL;
				diag_errno(w->d, m->path, "cannot map");
				w->reported = true;
				return false;
			}
			madvise(m->map, m->size, MADV_SEQUENTIAL);
		}
		in = m->map;
	}
	static const unsigned char empty[1];
	if (!in)
		in = empty;
	if (w->level == 0) {
		m->raw = in;
		m->raw_pos = 0;
		return zw_hash_only(m, in, m->size);
	}
	if (!zw_compress(m, in, m->size)) {
		diag_path(w->d, DIAG_ERROR, m->path ? m->path : m->name, "cannot compress");
		w->reported = true;
		return false;
	}
	if (m->map) { /* the chunks hold everything now */
		munmap(m->map, m->size);
		m->map = NULL;
	}
	m->pos_chunk = m->pos_off = 0;
	return true;
}

static zip_int64_t zw_read(struct zw_member *m, unsigned char *buf, zip_uint64_t len)
{
	if (m->w->level == 0) {
		uint64_t left = m->size - m->raw_pos;
		size_t k = len < left ? (size_t)len : (size_t)left;
		memcpy(buf, m->raw + m->raw_pos, k);
		m->raw_pos += k;
		return (zip_int64_t)k;
	}
	size_t got = 0;
	while (got < len && m->pos_chunk < m->n_chunks) {
		struct zw_chunk *c = &m->chunks[m->pos_chunk];
		size_t k = c->len - m->pos_off;
		if (k > len - got)
			k = (size_t)(len - got);
		memcpy(buf + got, c->out + m->pos_off, k);
		got += k;
		m->pos_off += k;
		if (m->pos_off == c->len) {
			free(c->out);
			c->out = NULL;
			m->pos_chunk++;
			m->pos_off = 0;
		}
	}
	return (zip_int64_t)got;
}

/* The libzip source of one file/memory/RECORD member. */
static zip_int64_t zw_member_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
	struct zw_member *m = ud;
	switch (cmd) {
	case ZIP_SOURCE_SUPPORTS:
		return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ,
		                                      ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
		                                      ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
	case ZIP_SOURCE_STAT: {
		zip_stat_t *st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &m->err);
		if (!st)
			return -1;
		if (m->kind == ZW_RECORD && !m->data && !zw_render_record(m)) {
			zip_error_set(&m->err, ZIP_ER_INTERNAL, 0);
			return -1;
		}
		zip_stat_init(st);
		st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_METHOD;
		st->size = m->size;
		st->comp_method = m->w->level ? ZIP_CM_DEFLATE : ZIP_CM_STORE;
		if (m->done && m->w->level) {
			st->valid |= ZIP_STAT_CRC | ZIP_STAT_COMP_SIZE;
			st->crc = m->crc;
			st->comp_size = m->comp_size;
		}
		return sizeof(*st);
	}
	case ZIP_SOURCE_OPEN:
		if (!zw_open(m)) {
			zw_release(m);
			zip_error_set(&m->err, ZIP_ER_READ, EIO);
			return -1;
		}
		return 0;
	case ZIP_SOURCE_READ:
		return zw_read(m, data, len);
	case ZIP_SOURCE_CLOSE:
		m->done = m->hash != NULL;
		zw_release(m);
		return 0;
	case ZIP_SOURCE_ERROR:
		return zip_error_to_data(&m->err, data, len);
	case ZIP_SOURCE_FREE:
		zw_release(m);
		return 0;
	default:
		zip_error_set(&m->err, ZIP_ER_OPNOTSUPP, 0);
		return -1;
	}
}

/* The libzip output: our registered temp file, written in place (no second temp file). */
static zip_int64_t zw_out_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
	struct wheel_writer *w = ud;
	switch (cmd) {
	case ZIP_SOURCE_SUPPORTS:
		return zip_source_make_command_bitmap(
		    ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
		    ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
		    ZIP_SOURCE_BEGIN_WRITE, ZIP_SOURCE_WRITE, ZIP_SOURCE_COMMIT_WRITE,
		    ZIP_SOURCE_ROLLBACK_WRITE, ZIP_SOURCE_SEEK_WRITE, ZIP_SOURCE_TELL_WRITE,
		    ZIP_SOURCE_REMOVE, ZIP_SOURCE_SUPPORTS, -1);
	case ZIP_SOURCE_STAT: {
		zip_stat_t *st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &w->err);
		if (!st)
			return -1;
		zip_stat_init(st);
		st->valid = ZIP_STAT_SIZE;
		st->size = 0;
		return sizeof(*st);
	}
	case ZIP_SOURCE_OPEN:
	case ZIP_SOURCE_CLOSE:
	case ZIP_SOURCE_FREE:
	case ZIP_SOURCE_COMMIT_WRITE:
	case ZIP_SOURCE_ROLLBACK_WRITE:
	case ZIP_SOURCE_REMOVE:
		return 0;
	case ZIP_SOURCE_READ:
	case ZIP_SOURCE_TELL:
		return 0;
	case ZIP_SOURCE_SEEK:
		return 0;
	case ZIP_SOURCE_BEGIN_WRITE:
		if (ftruncate(w->fd, 0) != 0 || lseek(w->fd, 0, SEEK_SET) != 0) {
			zip_error_set(&w->err, ZIP_ER_WRITE, errno);
			return -1;
		}
		return 0;
	case ZIP_SOURCE_WRITE: {
		const char *p = data;
		zip_uint64_t left = len;
		while (left) {
			ssize_t k = write(w->fd, p, left);
			if (k < 0) {
				if (errno == EINTR)
					continue;
				zip_error_set(&w->err, ZIP_ER_WRITE, errno);
				return -1;
			}
			p += k;
			left -= (zip_uint64_t)k;
		}
		return (zip_int64_t)len;
	}
	case ZIP_SOURCE_SEEK_WRITE: {
		zip_source_args_seek_t *s =
		    ZIP_SOURCE_GET_ARGS(zip_source_args_seek_t, data, len, &w->err);
		if (!s)
			return -1;
		if (lseek(w->fd, (off_t)s->offset, s->whence) < 0) {
			zip_error_set(&w->err, ZIP_ER_SEEK, errno);
			return -1;
		}
		return 0;
	}
	case ZIP_SOURCE_TELL_WRITE: {
		off_t off = lseek(w->fd, 0, SEEK_CUR);
		if (off < 0) {
			zip_error_set(&w->err, ZIP_ER_TELL, errno);
			return -1;
		}
		return off;
	}
	case ZIP_SOURCE_ERROR:
		return zip_error_to_data(&w->err, data, len);
	default:
		zip_error_set(&w->err, ZIP_ER_OPNOTSUPP, 0);
		return -1;
	}
}

/* DOS date and time of a UTC time, clamped to what zip can hold (1980..2107). */
static void zw_dostime(int64_t t, zip_uint16_t *dtime, zip_uint16_t *ddate)
{
	if (t < WHEEL_EPOCH_DEFAULT)
		t = WHEEL_EPOCH_DEFAULT;
	if (t > INT64_C(4354819198)) /* 2107-12-31 23:59:58 */
		t = INT64_C(4354819198);
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	*dtime = (zip_uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
	*ddate = (zip_uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
}

struct wheel_writer *wheel_writer_begin(struct arena *a, struct diag *d, const char *final_path,
                                        int level, int threads, int64_t epoch)
{
	struct wheel_writer *w = arena_alloc(a, sizeof(*w));
	w->a = a;
	w->d = d;
	w->final = arena_strdup(a, final_path);
	w->level = level < 0 ? 6 : level > 9 ? 9 : level;
	if (threads <= 0)
		threads = os_cpu_count();
	w->threads = threads > 64 ? 64 : threads;
	zw_dostime(epoch < 0 ? WHEEL_EPOCH_DEFAULT : epoch, &w->dtime, &w->ddate);
	zip_error_init(&w->err);
	char *tmp;
	w->fd = os_tmp_beside(a, d, final_path, &tmp);
	if (w->fd < 0)
		return NULL;
	w->tmp = tmp;
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *out = zip_source_function_create(zw_out_cb, w, &ze);
	if (out)
		w->za = zip_open_from_source(out, ZIP_TRUNCATE | ZIP_CREATE, &ze);
	if (!w->za) {
		diag_path(d, DIAG_ERROR, final_path, "cannot start the zip: %s",
		          zip_error_strerror(&ze));
		if (out)
			zip_source_free(out);
		zip_error_fini(&ze);
		close(w->fd);
		os_unlink(w->tmp);
		os_tmp_forget(w->tmp);
		return NULL;
	}
	zip_error_fini(&ze);
	return w;
}

static struct zw_member *zw_new(struct wheel_writer *w, enum zw_kind kind, const char *name)
{
	struct zw_member *m = arena_alloc(w->a, sizeof(*m));
	m->w = w;
	m->kind = kind;
	m->name = arena_strdup(w->a, name);
	m->fd = -1;
	zip_error_init(&m->err);
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		w->m = arena_realloc(w->a, w->m, w->n, cap, sizeof(*w->m));
		w->cap = cap;
	}
	w->m[w->n++] = m;
	return m;
}

/* Adds source src as name with the given attributes; src is freed on failure. */
static bool zw_add(struct wheel_writer *w, const char *name, zip_source_t *src, uint16_t method,
                   uint8_t opsys, uint32_t attrs, const int64_t *mtime)
{
	zip_int64_t idx = zip_file_add(w->za, name, src, ZIP_FL_ENC_UTF_8);
	if (idx < 0) {
		diag_path(w->d, DIAG_ERROR, w->final, "%s: cannot add: %s", name,
		          zip_strerror(w->za));
		zip_source_free(src);
		return false;
	}
	zip_uint64_t i = (zip_uint64_t)idx;
	int rc = zip_set_file_compression(w->za, i, method, 0);
	rc |= zip_file_set_external_attributes(w->za, i, 0, opsys, attrs);
	if (mtime)
		rc |= zip_file_set_mtime(w->za, i, (time_t)*mtime, 0);
	else
		rc |= zip_file_set_dostime(w->za, i, w->dtime, w->ddate, 0);
	if (rc) {
		diag_path(w->d, DIAG_ERROR, w->final, "%s: cannot set attributes: %s", name,
		          zip_strerror(w->za));
		return false;
	}
	return true;
}

static bool zw_add_own(struct wheel_writer *w, struct zw_member *m, bool exec, const int64_t *mt)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *src = zip_source_function_create(zw_member_cb, m, &ze);
	zip_error_fini(&ze);
	if (!src) {
		diag_path(w->d, DIAG_ERROR, w->final, "%s: cannot create a zip source", m->name);
		return false;
	}
	uint32_t mode = S_IFREG | (exec ? 0755u : 0644u);
	return zw_add(w, m->name, src, w->level ? ZIP_CM_DEFLATE : ZIP_CM_STORE, ZIP_OPSYS_UNIX,
	              mode << 16, mt);
}

bool wheel_writer_add_file(struct wheel_writer *w, const char *name, const char *path,
                           uint64_t size, bool exec)
{
	struct zw_member *m = zw_new(w, ZW_FILE, name);
	m->path = arena_strdup(w->a, path);
	m->size = size;
	return zw_add_own(w, m, exec, NULL);
}

bool wheel_writer_add_mem(struct wheel_writer *w, const char *name, const void *data, size_t len,
                          const int64_t *mtime)
{
	struct zw_member *m = zw_new(w, ZW_MEM, name);
	m->data = data;
	m->size = len;
	return zw_add_own(w, m, false, mtime);
}

bool wheel_writer_add_record(struct wheel_writer *w, const char *name, const int64_t *mtime)
{
	struct zw_member *m = zw_new(w, ZW_RECORD, name);
	return zw_add_own(w, m, false, mtime);
}

bool wheel_writer_add_copy(struct wheel_writer *w, const char *name, struct zip *src,
                           uint64_t index, uint16_t method, uint8_t opsys, uint32_t attrs,
                           int64_t mtime, const char *hash, uint64_t size)
{
	struct zw_member *m = zw_new(w, ZW_COPY, name);
	m->hash = hash;
	m->size = size;
	zip_source_t *s = zip_source_zip(w->za, src, index, ZIP_FL_COMPRESSED, 0, -1);
	if (!s) {
		diag_path(w->d, DIAG_ERROR, w->final, "%s: cannot copy: %s", name,
		          zip_strerror(w->za));
		return false;
	}
	return zw_add(w, name, s, method, opsys, attrs, &mtime);
}

bool wheel_writer_commit(struct wheel_writer *w)
{
	bool ok = true;
	if (zip_close(w->za) != 0) {
		if (!w->reported)
			diag_path(w->d, DIAG_ERROR, w->final, "cannot write the zip: %s",
			          zip_strerror(w->za));
		zip_discard(w->za);
		ok = false;
	}
	w->za = NULL;
	if (ok) {
		mode_t um = umask(0);
		umask(um);
		if (fchmod(w->fd, 0644 & ~um) != 0) {
			diag_errno(w->d, w->final, "cannot set the mode of");
			ok = false;
		}
	}
	if (!ok) {
		close(w->fd);
		os_unlink(w->tmp);
		os_tmp_forget(w->tmp);
		return false;
	}
	return os_commit_tmp(w->d, w->fd, w->tmp, w->final);
}

void wheel_writer_abort(struct wheel_writer *w)
{
	if (w->za)
		zip_discard(w->za);
	w->za = NULL;
	close(w->fd);
	os_unlink(w->tmp);
	os_tmp_forget(w->tmp);
}

int wheel_tmp_sweep(struct arena *a, const char *final_path, int64_t before_ns)
{
	const char *slash = strrchr(final_path, '/');
	const char *dir = slash ? arena_strndup(a, final_path, (size_t)(slash - final_path)) : ".";
	if (slash && slash == final_path)
		dir = "/";
	const char *base = slash ? slash + 1 : final_path;
	char *prefix = arena_printf(a, ".%s.tmp.", base);
	size_t pl = strlen(prefix);
	struct strv names = {0};
	if (!os_list_dir(a, dir, &names))
		return 0;
	int n = 0;
	for (size_t i = 0; i < names.n; i++) {
		const char *e = names.v[i];
		if (strncmp(e, prefix, pl) != 0 || strlen(e + pl) != 6)
			continue;
		char *p = os_join(a, dir, e);
		struct os_stat st;
		if (os_lstat(p, &st) && st.kind == OS_KIND_FILE && st.mtime_ns < before_ns &&
		    os_unlink(p))
			n++;
	}
	return n;
}
