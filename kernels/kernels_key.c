/* kernels_key.c: the kernel settings' digest (see kernels_key.h). */
#include "kernels/kernels_key.h"

#include "kernels/buildflags.h"
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

char *kernels_archive_key(struct arena *a, const struct config *cfg, const struct toolkit_plan *tp,
                          const char *cc, const struct torch_info *ti)
{
	struct strbuf sb = {0};
	/* Not the toolkit root: runners install the same nvcc in different places. */
	sb_printf(&sb, "v1\n%s\n%s\n", tp->tk->version, cc);
	for (size_t i = 0; i < tp->n_archs; i++)
		sb_printf(&sb, "%d%d%c%d;", tp->archs[i].major, tp->archs[i].minor,
		          tp->archs[i].suffix ? tp->archs[i].suffix : '-', tp->archs[i].ptx);
	kernels_key_settings(&sb, &cfg->kernels);
	/* Kernels that include torch headers are built against one torch: it is in the key.
	 * Kernels that include none are shared by every torch of the toolkit. */
	if (ti) {
		sb_printf(&sb, "torch %s %d", ti->version, ti->cxx11_abi);
		for (size_t i = 0; i < ti->abi_flags.n; i++)
			sb_printf(&sb, " %s", ti->abi_flags.v[i]);
		sb_putc(&sb, '\n');
	}
	/* Only when given, so that the keys of projects without them stay as they were. */
	struct strv hf = {0};
	buildflags_host(a, cfg, ti, true, &hf);
	if (hf.n) {
		sb_puts(&sb, "host-only");
		for (size_t i = 0; i < hf.n; i++)
			sb_printf(&sb, " %s", hf.v[i]);
		sb_putc(&sb, '\n');
	}
	char *hex = kernels_key_digest(a, &sb);
	sb_release(&sb);
	return hex;
}
