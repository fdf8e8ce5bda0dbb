/* kernels_key.c: the kernel settings' digest (see kernels_key.h). */
#include "kernels/kernels_key.h"

#include "standards/digest.h"

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
	char hex[65];
	mem_sha256_hex(sb->buf ? sb->buf : "", sb->len, hex);
	return arena_strndup(a, hex, KEY_HEX);
}
