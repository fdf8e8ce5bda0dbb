/* common.c: input checks and binary16 conversion shared by the CUDA entry points and the C
 * reference, so both reject the same inputs with the same messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tinyraster.h"
#include "tr_internal.h"

void tr_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int tr_check_mesh(int n_verts, const int32_t *F, int n_faces, int width, int height, char *err,
                  size_t errlen)
{
	if (n_verts < 0 || n_faces < 0) {
		tr_set_err(err, errlen, "negative vertex or face count");
		return -1;
	}
	if (n_faces >= INT32_MAX - 1) {
		tr_set_err(err, errlen, "too many faces: %d (the limit is %d)", n_faces,
		           INT32_MAX - 2);
		return -1;
	}
	if (width <= 0 || height <= 0) {
		tr_set_err(err, errlen, "image size must be positive, got width=%d height=%d",
		           width, height);
		return -1;
	}
	/* Pixel indices are int on the device and (float)px must stay exact: bound both. */
	if (width > TR_MAX_SIDE || height > TR_MAX_SIDE ||
	    (int64_t)width * (int64_t)height > (int64_t)INT32_MAX / 4) {
		tr_set_err(err, errlen,
		           "image too large: %dx%d (at most %d per side and %d pixels)", width,
		           height, TR_MAX_SIDE, INT32_MAX / 4);
		return -1;
	}
	for (int64_t i = 0; i < (int64_t)n_faces * 3; i++) {
		if (F[i] < 0 || F[i] >= n_verts) {
			tr_set_err(err, errlen,
			           "F[%lld][%d] = %d is out of range: there are %d vertices",
			           (long long)(i / 3), (int)(i % 3), F[i], n_verts);
			return -1;
		}
	}
	return 0;
}

int tr_check_face_ids(const int32_t *face_ids, int width, int height, int n_faces, char *err,
                      size_t errlen)
{
	for (int64_t p = 0; p < (int64_t)width * height; p++) {
		if (face_ids[p] < 0 || face_ids[p] > n_faces) {
			tr_set_err(err, errlen,
			           "face_ids[%lld][%lld] = %d is out of range: expected 0 "
			           "(background) to %d (the number of faces)",
			           (long long)(p / width), (long long)(p % width), face_ids[p],
			           n_faces);
			return -1;
		}
	}
	return 0;
}

int tr_check_interp(enum tr_dtype dtype, int n_verts, int n_chan, const int32_t *F, int n_faces,
                    const int32_t *face_ids, int width, int height, char *err, size_t errlen)
{
	if (dtype != TR_DTYPE_F32 && dtype != TR_DTYPE_F16) {
		tr_set_err(err, errlen, "unknown attribute dtype %d", (int)dtype);
		return -1;
	}
	if (n_chan <= 0 || (int64_t)n_verts * n_chan > (int64_t)INT32_MAX) {
		tr_set_err(err, errlen, "bad attribute shape [%d, %d]", n_verts, n_chan);
		return -1;
	}
	if (tr_check_mesh(n_verts, F, n_faces, width, height, err, errlen) ||
	    tr_check_face_ids(face_ids, width, height, n_faces, err, errlen))
		return -1;
	return 0;
}

float tr_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t man = h & 0x3ffu;
	uint32_t bits;
	if (exp == 0x1f) {
		bits = sign | 0x7f800000u | (man << 13); /* inf, NaN (payload kept) */
	} else if (exp != 0) {
		bits = sign | ((exp + 112u) << 23) | (man << 13);
	} else if (man == 0) {
		bits = sign;
	} else {
		/* Subnormal half: normalise it; every one is a normal float. */
		int e = -1;
		do {
			e++;
			man <<= 1;
		} while (!(man & 0x400u));
		bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
	}
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

uint16_t tr_float_to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof x);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t exp = (x >> 23) & 0xffu;
	uint32_t man = x & 0x7fffffu;
	if (exp == 0xff) /* inf stays inf; NaN becomes the canonical quiet NaN, as on the GPU */
		return (uint16_t)(sign | (man ? 0x7fffu : 0x7c00u));
	int e = (int)exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		/* Subnormal or zero: shift the full significand, round to nearest even. */
		if (e < -10)
			return sign;
		man |= 0x800000u;
		int shift = 14 - e;
		uint32_t half = man >> shift;
		uint32_t rem = man & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1u)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t half = ((uint32_t)e << 10) | (man >> 13);
	uint32_t rem = man & 0x1fffu;
	/* A carry out of the significand bumps the exponent, up to inf: that is correct rounding.
	 */
	if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
		half++;
	return (uint16_t)(sign | half);
}
