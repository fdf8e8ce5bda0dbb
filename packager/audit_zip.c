/* audit_zip.c: the archive's bytes as PyPI judges them (read with pread, not through libzip,
 * because libzip hides exactly what these rules are about: local headers, trailing bytes). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "packager/audit_int.h"

#define SIG_LOCAL   0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD    0x06054b50u
#define SIG_EOCD64  0x06064b50u
#define SIG_LOC64   0x07064b50u

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

/* Returns NULL when s (n bytes) is UTF-8 without control characters, else what is wrong. */
static const char *name_problem(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char ch = s[i];
		if (ch < 0x20 || ch == 0x7f)
			return "a control character";
		size_t len = ch < 0x80             ? 1
		             : (ch & 0xe0) == 0xc0 ? 2
		             : (ch & 0xf0) == 0xe0 ? 3
		             : (ch & 0xf8) == 0xf0 ? 4
		                                   : 0;
		if (!len || i + len > n || (len == 2 && ch < 0xc2))
			return "bytes that are not UTF-8";
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return "bytes that are not UTF-8";
		i += len;
	}
	return NULL;
}

/* Reads the zip64 extra field of a central entry for the fields that overflowed. */
static void zip64_extra(const unsigned char *x, size_t n, uint64_t *usize, uint64_t *csize,
                        uint64_t *lho)
{
	size_t i = 0;
	while (i + 4 <= n) {
		unsigned id = (unsigned)le(x + i, 2), sz = (unsigned)le(x + i + 2, 2);
		if (i + 4 + sz > n)
			return;
		if (id == 1) {
			const unsigned char *p = x + i + 4, *end = p + sz;
			if (*usize == 0xffffffffu && p + 8 <= end) {
				*usize = le(p, 8);
				p += 8;
			}
			if (*csize == 0xffffffffu && p + 8 <= end) {
				*csize = le(p, 8);
				p += 8;
			}
			if (*lho == 0xffffffffu && p + 8 <= end)
				*lho = le(p, 8);
			return;
		}
		i += 4 + sz;
	}
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static bool check_cd(struct audit_ctx *c, int fd, uint64_t fsize, const unsigned char *cd,
                     uint64_t cd_size, uint64_t count)
{
	/* count comes from the end record: trust it no further than the entries cd_size can hold
	 * (46 bytes each at least), or a lying zip64 count would ask for exabytes. */
	uint64_t cap = count < cd_size / 46 + 1 ? count : cd_size / 46 + 1;
	const char **names = arena_calloc(c->a, cap ? (size_t)cap : 1, sizeof *names);
	uint64_t off = 0, seen = 0;
	while (off + 46 <= cd_size && le(cd + off, 4) == SIG_CENTRAL) {
		const unsigned char *h = cd + off;
		unsigned flags = (unsigned)le(h + 8, 2), method = (unsigned)le(h + 10, 2);
		uint32_t crc = (uint32_t)le(h + 16, 4);
		uint64_t csize = le(h + 20, 4), usize = le(h + 24, 4);
		size_t nlen = (size_t)le(h + 28, 2), elen = (size_t)le(h + 30, 2),
		       clen = (size_t)le(h + 32, 2);
		uint64_t lho = le(h + 42, 4);
		if (off + 46 + nlen + elen + clen > cd_size) {
			audit_add(c, AUDIT_ERROR, "zip-structure", NULL, NULL,
			          "the central directory is truncated");
			return false;
		}
		const char *name = arena_strndup(c->a, (const char *)h + 46, nlen);
		zip64_extra(h + 46 + nlen, elen, &usize, &csize, &lho);
		const char *np = name_problem(h + 46, nlen);
		if (np || strlen(name) != nlen)
			audit_add(c, AUDIT_ERROR, "zip-name", name, NULL, "member name contains %s",
			          np ? np : "a NUL byte");
		if (method != 0 && method != 8)
			audit_add(c, AUDIT_ERROR, "zip-method", name, NULL,
			          "compression method %u (PyPI accepts only STORED and DEFLATED)",
			          method);
		if (flags & 1u)
			audit_add(c, AUDIT_ERROR, "zip-encrypted", name, NULL,
			          "member is encrypted");
		if (flags & 8u)
			audit_add(
			    c, AUDIT_ERROR, "zip-data-descriptor", name,
			    "write the sizes and CRC into the local header (a seekable writer)",
			    "member uses a data descriptor (flag bit 3), which PyPI refuses");
		unsigned char lh[30];
		if (lho + 30 > fsize || !pread_all(fd, lh, 30, lho) || le(lh, 4) != SIG_LOCAL) {
			audit_add(c, AUDIT_ERROR, "zip-local-header", name, NULL,
			          "no local header at offset %llu", (unsigned long long)lho);
		} else {
			size_t lnlen = (size_t)le(lh + 26, 2);
			char *lname = arena_alloc(c->a, lnlen + 1);
			bool same = lnlen == nlen && lho + 30 + lnlen <= fsize &&
			            pread_all(fd, lname, lnlen, lho + 30) &&
			            memcmp(lname, name, nlen) == 0;
			const char *what = NULL;
			if (!same)
				what = "name";
			else if ((unsigned)le(lh + 6, 2) != flags)
				what = "flags";
			else if ((unsigned)le(lh + 8, 2) != method)
				what = "compression method";
			else if (!(flags & 8u) && (uint32_t)le(lh + 14, 4) != crc)
				what = "CRC";
			else if (!(flags & 8u) && le(lh + 18, 4) != 0xffffffffu &&
			         (le(lh + 18, 4) != csize || le(lh + 22, 4) != usize))
				what = "sizes";
			if (what)
				audit_add(c, AUDIT_ERROR, "zip-local-header", name, NULL,
				          "local and central headers disagree on the %s", what);
		}
		if (seen < cap)
			names[seen] = name;
		seen++;
		off += 46 + nlen + elen + clen;
	}
	if (seen != count || off != cd_size)
		audit_add(c, AUDIT_ERROR, "zip-structure", NULL, NULL,
		          "the central directory holds %llu entries in %llu bytes, the end record "
		          "says %llu in %llu",
		          (unsigned long long)seen, (unsigned long long)off,
		          (unsigned long long)count, (unsigned long long)cd_size);
	size_t n = (size_t)(seen < cap ? seen : cap);
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 1; i < n; i++)
		if (strcmp(names[i - 1], names[i]) == 0 &&
		    (i < 2 || strcmp(names[i - 2], names[i])))
			audit_add(c, AUDIT_ERROR, "zip-duplicate", names[i], NULL,
			          "member appears more than once in the archive");
	return true;
}

/* Why a file with no end-of-central-directory record is not a zip: say which of empty,
 * truncated (it starts as a zip does: a local header or an end record) or not a zip at all. */
static const char *zip_why_not(struct arena *a, int fd, uint64_t fsize)
{
	if (fsize == 0)
		return "the file is empty (0 bytes), not a zip archive";
	unsigned char h[4] = {0};
	size_t n = fsize < 4 ? (size_t)fsize : 4;
	if (!pread_all(fd, h, n, 0))
		return "cannot read the file";
	if (n >= 2 && h[0] == 'P' && h[1] == 'K')
		return arena_printf(
		    a,
		    "truncated: it starts as a zip archive but its end (the central "
		    "directory) is missing (%llu bytes)",
		    (unsigned long long)fsize);
	return arena_printf(a,
	                    "not a zip archive: no end-of-central-directory record (%llu bytes, "
	                    "starting %02x %02x %02x %02x)",
	                    (unsigned long long)fsize, h[0], h[1], h[2], h[3]);
}

bool audit_zip_raw(struct audit_ctx *c, const char **why)
{
	*why = "cannot open the file";
	/* O_NONBLOCK: a FIFO swapped in after audit_wheel's check must not block the open. */
	int fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	uint64_t fsize = (uint64_t)st.st_size;
	size_t tail = fsize < 65557 ? (size_t)fsize : 65557;
	unsigned char *t = arena_alloc(c->a, tail + 1);
	bool ok = false;
	if (tail < 22 || !pread_all(fd, t, tail, fsize - tail)) {
		*why = zip_why_not(c->a, fd, fsize);
		goto out;
	}
	/* Like Python's zipfile: the last end record whose signature we find. */
	size_t e = tail - 22 + 1;
	while (e-- > 0)
		if (le(t + e, 4) == SIG_EOCD)
			break;
	if (e == (size_t)-1) {
		*why = zip_why_not(c->a, fd, fsize);
		goto out;
	}
	uint64_t eocd = fsize - tail + e;
	uint64_t clen = le(t + e + 20, 2);
	uint64_t count = le(t + e + 10, 2), cd_size = le(t + e + 12, 4), cd_off = le(t + e + 16, 4);
	ok = true;
	if (clen)
		audit_add(c, AUDIT_ERROR, "zip-comment", NULL,
		          "write the archive without a comment",
		          "the archive has a comment (%llu bytes), which PyPI refuses",
		          (unsigned long long)clen);
	if (eocd + 22 + clen < fsize)
		audit_add(c, AUDIT_ERROR, "zip-trailing-data", NULL, NULL,
		          "%llu bytes follow the end of the archive",
		          (unsigned long long)(fsize - eocd - 22 - clen));
	if (eocd + 22 + clen > fsize)
		audit_add(c, AUDIT_ERROR, "zip-structure", NULL, NULL,
		          "the archive comment runs past the end of the file");
	if (eocd >= 20 && e >= 20 && le(t + e - 20, 4) == SIG_LOC64) {
		uint64_t z64 = le(t + e - 20 + 8, 8);
		unsigned char z[56];
		if (z64 + 56 <= fsize && pread_all(fd, z, 56, z64) && le(z, 4) == SIG_EOCD64) {
			count = le(z + 32, 8);
			cd_size = le(z + 40, 8);
			cd_off = le(z + 48, 8);
		}
	}
	if (cd_off > fsize || cd_size > fsize - cd_off || cd_size > (uint64_t)1 << 32) {
		audit_add(c, AUDIT_ERROR, "zip-structure", NULL, NULL,
		          "the central directory lies outside the file");
		goto out;
	}
	unsigned char *cd = arena_alloc(c->a, (size_t)cd_size + 1);
	if (!pread_all(fd, cd, (size_t)cd_size, cd_off)) {
		audit_add(c, AUDIT_ERROR, "zip-structure", NULL, NULL,
		          "cannot read the central directory");
		goto out;
	}
	check_cd(c, fd, fsize, cd, cd_size, count);
out:
	close(fd);
	return ok;
}
