/* digest.h: sha256 as lowercase hex, of a file (toolkit downloads, build-stage manifests, index
 * entries) or of bytes in memory. */
#ifndef CUWHEEL_STANDARDS_DIGEST_H
#define CUWHEEL_STANDARDS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

/* Returns the sha256 of the file at path as 64 lowercase hex digits, or NULL + diagnostic
 * (cannot open, cannot read). size (may be NULL) receives the number of bytes hashed. */
char *file_sha256_hex(struct arena *a, struct diag *d, const char *path, uint64_t *size);
/* Writes the sha256 of len bytes at data to out as 64 lowercase hex digits and a NUL. */
void mem_sha256_hex(const void *data, size_t len, char out[65]);

#endif
