/* tr_internal.h: helpers shared inside the kernels archive, not part of the public API. */
#ifndef TR_INTERNAL_H
#define TR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tinyraster.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest image side: keeps (float)px exact and pixel indices within int. */
#define TR_MAX_SIDE 16384

/* Threads per raster work chunk; each chunk covers this many pixels of one face's box. */
#define TR_CHUNK 128

/* Format a message into err[errlen] (truncating); does nothing when err is NULL. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void tr_set_err(char *err, size_t errlen, const char *fmt, ...);

/* Everything tr_interpolate_* checks before touching memory; -1 with a message. */
int tr_check_interp(enum tr_dtype dtype, int n_verts, int n_chan, const int32_t *F, int n_faces,
                    const int32_t *face_ids, int width, int height, char *err, size_t errlen);

/* 0 when a CUDA device can be used, else -1 with "no CUDA device is available: <reason>". */
int tr_cuda_ready(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
