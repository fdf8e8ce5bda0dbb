/* digest.c: the sha256 of a file, for lock files, downloads and build stages. */
#include "standards/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <unistd.h>

char *file_sha256_hex(struct arena *a, struct diag *d, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag_errno(d, path, "cannot open");
		return NULL;
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	enum { BUF = 1 << 16 };
	unsigned char *buf = arena_alloc(a, BUF);
	ssize_t n;
	while ((n = read(fd, buf, BUF)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_errno(d, path, "cannot read");
			close(fd);
			EVP_MD_CTX_free(ctx);
			return NULL;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	}
	close(fd);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	EVP_DigestFinal_ex(ctx, md, &len);
	EVP_MD_CTX_free(ctx);
	char *hex = arena_alloc(a, 2 * len + 1);
	for (unsigned int i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return hex;
}
