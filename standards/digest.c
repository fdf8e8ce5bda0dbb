/* digest.c: sha256 as hex, of a file (lock files, downloads, build stages, index entries) or of
 * bytes in memory. */
#include "standards/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void to_hex(const unsigned char *md, unsigned int len, char *out)
{
	for (unsigned int i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

char *file_sha256_hex(struct arena *a, struct diag *d, const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag_errno(d, path, "cannot open");
		return NULL;
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	enum { BUF = 1 << 16 };
	unsigned char *buf = malloc(BUF); /* transient: not from the arena, which one call per
	                                   * wheel of an index would grow by 64 KiB each */
	if (!buf) {
		diag_errno(d, path, "cannot allocate a read buffer");
		close(fd);
		EVP_MD_CTX_free(ctx);
		return NULL;
	}
	uint64_t total = 0;
	ssize_t n;
	while ((n = read(fd, buf, BUF)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_errno(d, path, "cannot read");
			free(buf);
			close(fd);
			EVP_MD_CTX_free(ctx);
			return NULL;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		total += (uint64_t)n;
	}
	free(buf);
	close(fd);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	EVP_DigestFinal_ex(ctx, md, &len);
	EVP_MD_CTX_free(ctx);
	char *hex = arena_alloc(a, 2 * len + 1);
	to_hex(md, len, hex);
	if (size)
		*size = total;
	return hex;
}

void mem_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	to_hex(md, mdlen, out);
}
