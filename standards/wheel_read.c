/* wheel_read.c: the hardened zip reader (libzip + a raw look at the central directory for the
 * flag bits libzip does not expose) and extraction that never leaves its destination. */
#include "standards/wheel_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zip.h>

#include "base/os-file.h"
#include "base/path.h"
#include "standards/record.h"

void extract_limits_default(struct extract_limits *l)
{
	l->max_members = 200000;
	l->max_member_size = UINT64_C(16) << 30;
	l->max_total_size = UINT64_C(64) << 30;
	l->max_ratio = 500;
	l->fold_case = false;
}

/* Length of the UTF-8 sequence at s, or 0 when it is not valid UTF-8 (overlongs included). */
static size_t zr_utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n = (s[0] & 0xe0) == 0xc0   ? 2
	           : (s[0] & 0xf0) == 0xe0 ? 3
	           : (s[0] & 0xf8) == 0xf0 ? 4
	                                   : 0;
	if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return 0;
	if (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return 0; /* surrogates */
	if (n == 4 && s[0] == 0xf0 && s[1] < 0x90)
		return 0;
	return n;
}

const char *zip_name_problem(const char *name)
{
	if (!name[0])
		return "empty name";
	if (name[0] == '/')
		return "absolute path";
	if (((name[0] | 0x20) >= 'a' && (name[0] | 0x20) <= 'z') && name[1] == ':')
		return "drive-letter path";
	for (const unsigned char *s = (const unsigned char *)name; *s;) {
		if (*s < 0x20 || *s == 0x7f)
			return "control character in the name";
		if (*s == '\\')
			return "backslash in the name (not a portable separator)";
		size_t n = zr_utf8_len(s);
		if (!n)
			return "name is not valid UTF-8";
		s += n;
	}
	const char *rest = name, *p;
	size_t len;
	while ((p = path_next(&rest, &len))) {
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return "'..' component (path traversal)";
		if (len == 1 && p[0] == '.')
			return "'.' component";
		if (len == 0)
			return "empty path component";
	}
	return NULL;
}

static uint32_t zr_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t zr_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Reads the general-purpose flags of each central-directory entry (in order) and whether the
 * archive has a comment. Returns the index of the first member whose entry is wrong, with *why:
 * a stored name longer than the C string libzip gave (a NUL inside hides the rest of the name
 * from every check), or a local header that is missing or names another file (overlapping
 * entries, the zip-bomb construction that reuses one compressed stream under many names);
 * else SIZE_MAX. */
static size_t zr_scan_flags(const char *path, struct zip_reader *r, const char **why)
{
	size_t bad_name = SIZE_MAX;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bad_name;
	size_t tail = r->file_size < 65557 ? (size_t)r->file_size : 65557;
	unsigned char *buf = malloc(tail ? tail : 1);
	if (buf && pread(fd, buf, tail, (off_t)(r->file_size - tail)) == (ssize_t)tail) {
		for (size_t i = tail >= 22 ? tail - 22 + 1 : 0; i-- > 0;) {
			if (zr_le32(buf + i) != 0x06054b50)
				continue;
			r->has_comment = zr_le16(buf + i + 20) != 0;
			uint64_t cd_size = zr_le32(buf + i + 12), cd_off = zr_le32(buf + i + 16);
			if (cd_off == 0xffffffffu || cd_size == 0xffffffffu || i < 20 ||
			    zr_le32(buf + i - 20) == 0x07064b50) {
				/* Zip64: the locator points at the zip64 end record. */
				unsigned char z[56];
				if (i >= 20 && zr_le32(buf + i - 20) == 0x07064b50) {
					uint64_t eo = zr_le32(buf + i - 12) |
					              (uint64_t)zr_le32(buf + i - 8) << 32;
					if (pread(fd, z, 56, (off_t)eo) == 56 &&
					    zr_le32(z) == 0x06064b50) {
						cd_size = zr_le32(z + 40) |
						          (uint64_t)zr_le32(z + 44) << 32;
						cd_off = zr_le32(z + 48) | (uint64_t)zr_le32(z + 52)
						                               << 32;
					}
				}
			}
			if (cd_size > r->file_size || cd_off > r->file_size - cd_size)
				break;
			unsigned char *cd = malloc(cd_size ? cd_size : 1);
			if (cd && pread(fd, cd, cd_size, (off_t)cd_off) == (ssize_t)cd_size) {
				size_t o = 0;
				for (size_t k = 0; k < r->n_members && o + 46 <= cd_size; k++) {
					if (zr_le32(cd + o) != 0x02014b50)
						break;
					uint16_t fl = zr_le16(cd + o + 8);
					r->members[k].flags = fl;
					size_t nlen = zr_le16(cd + o + 28);
					if (nlen != strlen(r->members[k].name) &&
					    bad_name == SIZE_MAX) {
						bad_name = k;
						*why = "a NUL byte in the stored name";
					}
					uint32_t lho = zr_le32(cd + o + 42);
					unsigned char lh[30];
					char *lname = malloc(nlen ? nlen : 1);
					if (bad_name == SIZE_MAX && lho != 0xffffffffu &&
					    o + 46 + nlen <= cd_size &&
					    (pread(fd, lh, 30, (off_t)lho) != 30 ||
					     zr_le32(lh) != 0x04034b50 ||
					     zr_le16(lh + 26) != nlen || !lname ||
					     pread(fd, lname, nlen, (off_t)lho + 30) !=
					         (ssize_t)nlen ||
					     memcmp(lname, cd + o + 46, nlen) != 0)) {
						bad_name = k;
						*why =
						    "its local header is missing or names another "
						    "member (overlapping entries)";
					}
					free(lname);
					if (fl & ZIP_MEMBER_DATA_DESCRIPTOR)
						r->has_data_descriptors = true;
					o += 46u + zr_le16(cd + o + 28) + zr_le16(cd + o + 30) +
					     zr_le16(cd + o + 32);
				}
			}
			free(cd);
			break;
		}
	}
	free(buf);
	close(fd);
	return bad_name;
}

static int zr_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}
static int zr_cmp_member(const void *x, const void *y)
{
	return strcmp((*(const struct zip_member *const *)x)->name,
	              (*(const struct zip_member *const *)y)->name);
}
static int zr_casecmp(const void *x, const void *y)
{
	return strcasecmp(*(const char *const *)x, *(const char *const *)y);
}

/* Reads member i's header into r->members[i] and checks it: its name, type, encryption,
 * method, declared sizes and ratio, and the running total of declared sizes (*total). False +
 * diagnostic on the first problem. */
static bool zr_read_member(struct arena *a, struct diag *d, const char *path, struct zip_reader *r,
                           size_t i, uint64_t *total)
{
	struct zip_member *m = &r->members[i];
	zip_stat_t zs;
	/* ZIP_FL_ENC_RAW: the bytes as stored. Without it libzip reads a name lacking the
	 * UTF-8 flag as CP437 and converts it, which turns control characters and invalid
	 * UTF-8 into harmless-looking text that then passes the checks below. */
	if (zip_stat_index(r->za, i, ZIP_FL_ENC_RAW, &zs) != 0 || !(zs.valid & ZIP_STAT_NAME)) {
		diag_path(d, DIAG_ERROR, path, "member %zu: cannot read its header: %s", i,
		          zip_strerror(r->za));
		return false;
	}
	m->name = arena_strdup(a, zs.name);
	m->index = i;
	m->size = zs.size;
	m->comp_size = zs.comp_size;
	m->crc = zs.crc;
	m->method = zs.comp_method;
	m->mtime = (int64_t)zs.mtime;
	size_t nl = strlen(m->name);
	m->is_dir = nl && m->name[nl - 1] == '/';
	const char *check = m->is_dir ? arena_strndup(a, m->name, nl - 1) : m->name;
	const char *why = zip_name_problem(check);
	if (why) {
		diag_path(d, DIAG_ERROR, path, "member '%s': %s", m->name, why);
		return false;
	}
	zip_uint8_t opsys;
	zip_uint32_t attr;
	if (zip_file_get_external_attributes(r->za, i, 0, &opsys, &attr) != 0) {
		diag_path(d, DIAG_ERROR, path, "member '%s': cannot read its attributes", m->name);
		return false;
	}
	if (opsys == ZIP_OPSYS_UNIX) {
		m->mode = attr >> 16;
		unsigned type = m->mode & S_IFMT;
		if (type == S_IFLNK) {
			diag_path(d, DIAG_ERROR, path,
			          "member '%s' is a symbolic link (refused: links can point "
			          "outside the destination)",
			          m->name);
			return false;
		}
		if (type && type != S_IFREG && type != S_IFDIR) {
			diag_path(d, DIAG_ERROR, path,
			          "member '%s' is a special file (mode %o), not a regular file",
			          m->name, m->mode);
			return false;
		}
	}
	if ((zs.valid & ZIP_STAT_ENCRYPTION_METHOD) && zs.encryption_method != ZIP_EM_NONE) {
		diag_path(d, DIAG_ERROR, path, "member '%s' is encrypted", m->name);
		return false;
	}
	if (m->method != ZIP_CM_STORE && m->method != ZIP_CM_DEFLATE) {
		diag_path(d, DIAG_ERROR, path,
		          "member '%s' uses compression method %u (only stored and deflate "
		          "are accepted)",
		          m->name, m->method);
		return false;
	}
	if (m->comp_size > r->file_size) {
		diag_path(d, DIAG_ERROR, path,
		          "member '%s' declares %llu compressed bytes, more than the whole "
		          "archive (%llu)",
		          m->name, (unsigned long long)m->comp_size,
		          (unsigned long long)r->file_size);
		return false;
	}
	if (m->method == ZIP_CM_STORE && m->size != m->comp_size) {
		diag_path(d, DIAG_ERROR, path,
		          "member '%s' is stored but declares %llu bytes and %llu compressed",
		          m->name, (unsigned long long)m->size, (unsigned long long)m->comp_size);
		return false;
	}
	if (m->size > r->limits.max_member_size) {
		diag_path(d, DIAG_ERROR, path,
		          "member '%s' declares %llu bytes, over the limit of %llu", m->name,
		          (unsigned long long)m->size,
		          (unsigned long long)r->limits.max_member_size);
		return false;
	}
	if (m->size > (1u << 20) &&
	    m->size / (m->comp_size ? m->comp_size : 1) > r->limits.max_ratio) {
		diag_path(d, DIAG_ERROR, path,
		          "member '%s' expands %llu bytes into %llu (ratio over %llu): "
		          "refused as a zip bomb",
		          m->name, (unsigned long long)m->comp_size, (unsigned long long)m->size,
		          (unsigned long long)r->limits.max_ratio);
		return false;
	}
	*total += m->size;
	if (*total > r->limits.max_total_size) {
		diag_path(d, DIAG_ERROR, path,
		          "members declare more than %llu bytes in all: refused as a zip bomb",
		          (unsigned long long)r->limits.max_total_size);
		return false;
	}
	return true;
}

bool zip_reader_open(struct arena *a, struct diag *d, const char *path,
                     const struct extract_limits *limits, struct zip_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->path = arena_strdup(a, path);
	extract_limits_default(&r->limits);
	if (limits) {
		if (limits->max_members)
			r->limits.max_members = limits->max_members;
		if (limits->max_member_size)
			r->limits.max_member_size = limits->max_member_size;
		if (limits->max_total_size)
			r->limits.max_total_size = limits->max_total_size;
		if (limits->max_ratio)
			r->limits.max_ratio = limits->max_ratio;
		r->limits.fold_case = limits->fold_case;
	}
	struct os_stat st;
	if (!os_stat(path, &st)) {
		diag_errno(d, path, "cannot open");
		return false;
	}
	if (st.kind != OS_KIND_FILE) {
		diag_path(d, DIAG_ERROR, path, "not a regular file");
		return false;
	}
	r->file_size = st.size;
	int zerr = 0;
	const char *cons_why = NULL;
	r->za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
	if (!r->za && (zerr == ZIP_ER_EXISTS || zerr == ZIP_ER_INCONS || zerr == ZIP_ER_NOZIP)) {
		/* Open again without the consistency check, only to name the member at fault:
		 * the checks below refuse the archive in any case. */
		int zerr2 = 0;
		r->za = zip_open(path, ZIP_RDONLY, &zerr2);
		if (r->za)
			cons_why = zerr == ZIP_ER_EXISTS ? "two members have the same name"
			           : zerr == ZIP_ER_NOZIP
			               ? "no central directory (truncated or not "
			                 "a zip)"
			               : "inconsistent headers (truncated or "
			                 "tampered)";
	}
	if (!r->za) {
		zip_error_t ze;
		zip_error_init_with_code(&ze, zerr);
		const char *why =
		    zerr == ZIP_ER_EXISTS   ? "two members have the same name"
		    : zerr == ZIP_ER_NOZIP  ? "no central directory (truncated or not a zip)"
		    : zerr == ZIP_ER_INCONS ? "inconsistent headers (truncated or tampered)"
		                            : zip_error_strerror(&ze);
		diag_path(d, DIAG_ERROR, path, "not a valid zip archive: %s", why);
		zip_error_fini(&ze);
		return false;
	}
	zip_int64_t n = zip_get_num_entries(r->za, 0);
	if (n < 0 || (uint64_t)n > r->limits.max_members) {
		diag_path(d, DIAG_ERROR, path, "%lld members: more than the limit of %llu",
		          (long long)n, (unsigned long long)r->limits.max_members);
		zip_reader_close(r);
		return false;
	}
	r->n_members = (size_t)n;
	r->members = arena_calloc(a, r->n_members ? r->n_members : 1, sizeof(*r->members));
	uint64_t total = 0;
	for (size_t i = 0; i < r->n_members; i++)
		if (!zr_read_member(a, d, path, r, i, &total))
			goto fail;
	/* Duplicates, by exact name and optionally ignoring ASCII case. */
	const char **names = arena_calloc(a, r->n_members ? r->n_members : 1, sizeof(*names));
	for (size_t i = 0; i < r->n_members; i++)
		names[i] = r->members[i].name;
	int (*cmp)(const void *, const void *) = r->limits.fold_case ? zr_casecmp : zr_cmp;
	qsort(names, r->n_members, sizeof(*names), cmp);
	for (size_t i = 1; i < r->n_members; i++) {
		if (cmp(&names[i - 1], &names[i]) == 0) {
			diag_path(d, DIAG_ERROR, path, "member '%s' appears more than once%s",
			          names[i], r->limits.fold_case ? " (ignoring case)" : "");
			goto fail;
		}
	}
	/* Names are unique now: a sorted index makes every lookup a binary search. */
	r->sorted = arena_calloc(a, r->n_members ? r->n_members : 1, sizeof(*r->sorted));
	for (size_t i = 0; i < r->n_members; i++)
		r->sorted[i] = &r->members[i];
	if (r->n_members)
		qsort(r->sorted, r->n_members, sizeof(*r->sorted), zr_cmp_member);
	const char *bad_why = NULL;
	size_t bad = zr_scan_flags(path, r, &bad_why);
	if (bad != SIZE_MAX) {
		diag_path(d, DIAG_ERROR, path, "member '%s': %s", r->members[bad].name, bad_why);
		goto fail;
	}
	if (cons_why) {
		/* libzip's consistency check failed, yet no member-level check above could say
		 * which member: report what libzip saw. */
		diag_path(d, DIAG_ERROR, path, "not a valid zip archive: %s", cons_why);
		goto fail;
	}
	return true;
fail:
	zip_reader_close(r);
	return false;
}

const struct zip_member *zip_reader_find(const struct zip_reader *r, const char *name)
{
	if (!r->sorted) { /* not opened by zip_reader_open */
		for (size_t i = 0; i < r->n_members; i++)
			if (strcmp(r->members[i].name, name) == 0)
				return &r->members[i];
		return NULL;
	}
	size_t lo = 0, hi = r->n_members;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->sorted[mid]->name, name);
		if (c == 0)
			return r->sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool zip_reader_stream(struct diag *d, struct zip_reader *r, const struct zip_member *m,
                       bool (*fn)(void *user, const void *buf, size_t n), void *user)
{
	zip_file_t *zf = zip_fopen_index(r->za, m->index, 0);
	if (!zf) {
		diag_path(d, DIAG_ERROR, r->path, "member '%s': cannot open: %s", m->name,
		          zip_strerror(r->za));
		return false;
	}
	enum { BUF = 1 << 20 };
	char *buf = malloc(BUF);
	if (!buf) {
		zip_fclose(zf);
		diag_path(d, DIAG_ERROR, r->path, "member '%s': out of memory", m->name);
		return false;
	}
	uint64_t got = 0;
	bool ok = true;
	for (;;) {
		zip_int64_t k = zip_fread(zf, buf, BUF);
		if (k < 0) {
			diag_path(d, DIAG_ERROR, r->path, "member '%s': %s", m->name,
			          zip_file_strerror(zf));
			ok = false;
			break;
		}
		if (k == 0)
			break;
		got += (uint64_t)k;
		if (got > m->size) {
			diag_path(d, DIAG_ERROR, r->path,
			          "member '%s' holds more data than its declared %llu bytes",
			          m->name, (unsigned long long)m->size);
			ok = false;
			break;
		}
		if (!fn(user, buf, (size_t)k)) {
			ok = false;
			break;
		}
	}
	if (ok && got != m->size) {
		diag_path(d, DIAG_ERROR, r->path,
		          "member '%s' holds %llu bytes, not its declared %llu (truncated or lying "
		          "header)",
		          m->name, (unsigned long long)got, (unsigned long long)m->size);
		ok = false;
	}
	free(buf);
	zip_fclose(zf);
	return ok;
}

struct zr_membuf {
	char *p;
	size_t len;
};

static bool zr_to_mem(void *user, const void *buf, size_t n)
{
	struct zr_membuf *b = user;
	memcpy(b->p + b->len, buf, n);
	b->len += n;
	return true;
}

bool zip_reader_read(struct arena *a, struct diag *d, struct zip_reader *r,
                     const struct zip_member *m, uint64_t max_size, char **data, size_t *len)
{
	if (m->size > max_size) {
		diag_path(d, DIAG_ERROR, r->path,
		          "member '%s' is %llu bytes, over the %llu allowed", m->name,
		          (unsigned long long)m->size, (unsigned long long)max_size);
		return false;
	}
	struct zr_membuf b = {arena_alloc(a, (size_t)m->size + 1), 0};
	if (!zip_reader_stream(d, r, m, zr_to_mem, &b))
		return false;
	b.p[b.len] = '\0';
	*data = b.p;
	*len = b.len;
	return true;
}

void zip_reader_close(struct zip_reader *r)
{
	if (r->za)
		zip_discard(r->za);
	r->za = NULL;
}

struct zr_out {
	int fd;
	struct diag *d;
	const char *path;
};

static bool zr_to_fd(void *user, const void *buf, size_t n)
{
	struct zr_out *o = user;
	const char *p = buf;
	while (n) {
		ssize_t k = write(o->fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			diag_errno(o->d, o->path, "cannot write");
			return false;
		}
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* Opens (creating) each directory of rel below root without following any symlink; returns
 * the fd of the last one, or -1 + diagnostic. rel is modified temporarily. */
static int zr_open_dirs(struct diag *d, int root, const char *dest, char *rel, bool create_last)
{
	int dfd = dup(root);
	char *p = rel;
	for (;;) {
		char *slash = strchr(p, '/');
		if (!slash && !create_last)
			break;
		if (slash)
			*slash = '\0';
		if (*p) {
			if (mkdirat(dfd, p, 0755) != 0 && errno != EEXIST) {
				diag_errno(d, dest, "cannot create a directory in");
				close(dfd);
				return -1;
			}
			int nfd = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (nfd < 0) {
				diag_path(d, DIAG_ERROR, dest,
				          "'%s' exists and is not a directory cuwheel can enter "
				          "(symlinks are not followed)",
				          rel);
				if (slash)
					*slash = '/';
				close(dfd);
				return -1;
			}
			close(dfd);
			dfd = nfd;
		}
		if (!slash)
			break;
		*slash = '/';
		p = slash + 1;
	}
	return dfd;
}

bool wheel_extract(struct arena *a, struct diag *d, const char *zip_path, const char *dest_dir,
                   const struct extract_limits *limits)
{
	struct zip_reader r;
	if (!zip_reader_open(a, d, zip_path, limits, &r))
		return false;
	if (!os_mkdir_p(d, dest_dir)) {
		zip_reader_close(&r);
		return false;
	}
	int root = open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		diag_errno(d, dest_dir, "cannot open");
		zip_reader_close(&r);
		return false;
	}
	bool ok = true;
	for (size_t i = 0; ok && i < r.n_members; i++) {
		const struct zip_member *m = &r.members[i];
		char *rel = arena_strdup(a, m->name);
		size_t rl = strlen(rel);
		if (m->is_dir) {
			rel[rl - 1] = '\0';
			int fd = zr_open_dirs(d, root, dest_dir, rel, true);
			ok = fd >= 0;
			if (fd >= 0)
				close(fd);
			continue;
		}
		int dfd = zr_open_dirs(d, root, dest_dir, rel, false);
		if (dfd < 0) {
			ok = false;
			break;
		}
		const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
		mode_t mode = (m->mode & 0111) ? 0755 : 0644;
		const char *out = os_join(a, dest_dir, m->name);
		int fd =
		    openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		close(dfd);
		if (fd < 0) {
			diag_path(d, DIAG_ERROR, zip_path, "member '%s': cannot create %s: %s",
			          m->name, out, strerror(errno));
			ok = false;
			break;
		}
		struct zr_out o = {fd, d, out};
		ok = zip_reader_stream(d, &r, m, zr_to_fd, &o);
		if (ok && fchmod(fd, mode) != 0) {
			diag_errno(d, out, "cannot set the mode of");
			ok = false;
		}
		if (close(fd) != 0 && ok) {
			diag_errno(d, out, "cannot write");
			ok = false;
		}
	}
	close(root);
	zip_reader_close(&r);
	return ok;
}

/* Feeds a chunk to the sha256 context. */
static bool zr_hash_cb(void *user, const void *buf, size_t n)
{
	return EVP_DigestUpdate(user, buf, n) == 1;
}

bool wheel_verify_record(struct arena *a, struct diag *d, struct zip_reader *r,
                         const char *record_name)
{
	const struct zip_member *rec = zip_reader_find(r, record_name);
	if (!rec) {
		diag_path(d, DIAG_ERROR, r->path, "no %s in the wheel", record_name);
		return false;
	}
	char *text;
	size_t len;
	struct record rows = {0};
	if (!zip_reader_read(a, d, r, rec, 64u << 20, &text, &len) ||
	    !record_parse(a, d, arena_printf(a, "%s: %s", r->path, record_name), text, len, &rows))
		return false;
	for (size_t i = 0; i < rows.n; i++) {
		if (!zip_reader_find(r, rows.v[i].path)) {
			diag_path(d, DIAG_ERROR, r->path,
			          "RECORD lists '%s', which is not in the wheel", rows.v[i].path);
			return false;
		}
	}
	for (size_t i = 0; i < r->n_members; i++) {
		const struct zip_member *m = &r->members[i];
		if (m->is_dir || m == rec)
			continue;
		const struct record_row *row = record_find(&rows, m->name);
		if (!row || !row->hash || strncmp(row->hash, "sha256=", 7) != 0) {
			diag_path(d, DIAG_ERROR, r->path,
			          "member '%s' is not listed in RECORD with a sha256 hash",
			          m->name);
			return false;
		}
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
			EVP_MD_CTX_free(ctx);
			diag_path(d, DIAG_ERROR, r->path, "cannot start sha256");
			return false;
		}
		unsigned char md[32];
		unsigned mdlen = 0;
		bool ok = zip_reader_stream(d, r, m, zr_hash_cb, ctx) &&
		          EVP_DigestFinal_ex(ctx, md, &mdlen) == 1;
		EVP_MD_CTX_free(ctx);
		if (!ok)
			return false;
		const char *got = record_hash_str(a, md);
		if (strcmp(got, row->hash) != 0 || (row->has_size && row->size != m->size)) {
			diag_path(d, DIAG_ERROR, r->path,
			          "member '%s' does not match RECORD (hash %s, %llu bytes; RECORD "
			          "says %s, %s bytes)",
			          m->name, got, (unsigned long long)m->size, row->hash,
			          row->has_size
			              ? arena_printf(a, "%llu", (unsigned long long)row->size)
			              : "no size");
			return false;
		}
	}
	return true;
}
