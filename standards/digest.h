/* digest.h: the sha256 of a file as lowercase hex (toolkit downloads, build-stage manifests). */
#ifndef CUWHEEL_STANDARDS_DIGEST_H
#define CUWHEEL_STANDARDS_DIGEST_H

#include "base/arena.h"
#include "base/diag.h"

/* Returns the sha256 of the file at path as 64 lowercase hex digits, or NULL + diagnostic
 * (cannot open, cannot read). */
char *file_sha256_hex(struct arena *a, struct diag *d, const char *path);

#endif
