/* kernels_key.h: the digest that names a kernel archive: one hashing of the kernel settings for
 * the build graph's archive directories and the CI workflow's cache keys. */
#ifndef CUWHEEL_KERNELS_KERNELS_KEY_H
#define CUWHEEL_KERNELS_KERNELS_KEY_H

#include "base/strbuf.h"
#include "matrix/config.h"

/* Appends to sb, in one fixed order, the kernel settings that change the objects: sources,
 * include dirs, defines, nvcc and host flags, the cudart kind and rdc. */
void kernels_key_settings(struct strbuf *sb, const struct kernels_cfg *k);
/* Returns the first 12 hex digits of the SHA-256 of sb's text (a key); never NULL. */
char *kernels_key_digest(struct arena *a, const struct strbuf *sb);

#endif
