/* kernels_key.c: the kernel settings' digest (see kernels_key.h). */
#include "matrix/kernels_key.h"

#include <stdio.h>

#include <openssl/evp.h>

enum { KEY_HEX = 12 };

void kernels_key_settings(struct strbuf *sb, const struct kernels_cfg *k)
{
	const struct strv *lists[] = {&k->files, &k->include_dirs, &k->defines, &k->nvcc_flags,
	                              &k->host_flags};
	for (size_t l = 0; l < sizeof(lists) / sizeof(*lists); l++) {
		for (size_t i = 0; i < lists[l]->n; i++)
			sb_printf(sb, "%s\x1f", lists[l]->v[i]);
		sb_putc(sb, '\n');
	}
	sb_printf(sb, "%d %d\n", (int)k->cudart, k->rdc);
}

char *kernels_key_digest(struct arena *a, const struct strbuf *sb)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_Digest(sb->buf ? sb->buf : "", sb->len, md, &mdlen, EVP_sha256(), NULL);
	char *hex = arena_alloc(a, KEY_HEX + 1);
	for (int i = 0; i < KEY_HEX / 2; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return hex;
}
