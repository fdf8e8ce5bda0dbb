/* kernels_key.h: the digest that names a kernel archive: one hashing of the kernel settings for
 * the build graph's archive directories and the CI workflow's cache keys, and the archive's key
 * itself. */
#ifndef CUWHEEL_KERNELS_KERNELS_KEY_H
#define CUWHEEL_KERNELS_KERNELS_KEY_H

#include "base/strbuf.h"
#include "matrix/config.h"
#include "matrix/matrix.h"
#include "toolchain/discover.h"

/* Appends to sb, in one fixed order, the kernel settings that change the objects: sources,
 * include dirs, defines, nvcc and host flags, the cudart kind and rdc. */
void kernels_key_settings(struct strbuf *sb, const struct kernels_cfg *k);
/* Returns the first 12 hex digits of the SHA-256 of sb's text (a key); never NULL. */
char *kernels_key_digest(struct arena *a, const struct strbuf *sb);
/* Returns the key of toolkit tp's kernel archive built with host compiler cc (and torch ti,
 * NULL when the kernels include no torch header): a digest of everything that changes the
 * kernel objects (the nvcc version, cc, the archs, the kernel settings, torch, the host-only
 * flags), not of the toolkit's install path (runners put the same nvcc in different places). */
char *kernels_archive_key(struct arena *a, const struct config *cfg, const struct toolkit_plan *tp,
                          const char *cc, const struct torch_info *ti);

#endif
