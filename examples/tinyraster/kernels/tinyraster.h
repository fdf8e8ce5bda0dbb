/* tinyraster.h: the plain-C API of tinyraster's kernels (CUDA) and of their C reference. */
#ifndef TINYRASTER_H
#define TINYRASTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Conventions shared by every function below (and by Hunyuan3D's rasterize_image):
 * - V is float32 [n_verts, 4] clip space (x, y, z, w), row-major; F is int32 [n_faces, 3].
 * - Screen mapping: sx = (x/w * 0.5 + 0.5) * (width - 1) + 0.5, same for y with height; pixel
 *   (px, py) is sampled at its centre (px + 0.5, py + 0.5); row 0 is y/w = -1 (no flip).
 * - Depth: d = z/w * 0.49999 + 0.5, linear in screen space; fragments with d < 0 are dropped.
 * - Z-buffer key: (uint32)(d * 2^18) << 32 | (face + 1); the smallest key wins, so equal
 *   quantised depths break ties toward the lowest face index, on GPU and CPU alike.
 * - Depth prior (use_depth_prior != 0, D float32 [height, width] in z/w units): a fragment is
 *   kept only when d >= D[p] * 0.49999 + 0.5 + occlusion_truncation, i.e. strictly behind the
 *   prior surface (depth peeling). Without a prior, occlusion_truncation is unused.
 * - Faces with a vertex of w <= 0 or non-finite screen coordinates are culled (no clipping).
 * - Output: face_ids int32 [height, width], 0 = background, else face index + 1; bary float32
 *   [height, width, 3], perspective-correct, zero on background.
 * - Buffers are HOST pointers; the CUDA functions copy to and from the device themselves.
 * Every function that can fail returns 0 on success, or -1 with a message in err[errlen].
 */

/* Element types accepted by the interpolation functions. */
enum tr_dtype {
	TR_DTYPE_F32 = 0, /* float */
	TR_DTYPE_F16 = 1, /* IEEE binary16, stored as uint16_t */
};

/* What tr_cuda_device_info reports about one device. */
struct tr_device_info {
	char name[256];
	int major, minor; /* compute capability */
	int multiprocessors;
	size_t total_memory; /* bytes */
	int driver_version;  /* e.g. 13000 for CUDA 13.0 */
	int runtime_version; /* the cudart linked in */
};

/* Number of CUDA devices; 0 when there is none or no driver (the reason goes to err). */
int tr_cuda_device_count(char *err, size_t errlen);

/* Fill *out for device `device`; -1 with a message when it does not exist. */
int tr_cuda_device_info(int device, struct tr_device_info *out, char *err, size_t errlen);

/* Rasterise on the current CUDA device; -1 with "no CUDA device is available: ..." when none. */
int tr_rasterize_cuda(const float *V, int n_verts, const int32_t *F, int n_faces, const float *D,
                      int width, int height, float occlusion_truncation, int use_depth_prior,
                      int32_t *face_ids, float *bary, char *err, size_t errlen);

/* Interpolate attr [n_verts, n_chan] (dtype) over a rasterised image into out
 * [height, width, n_chan] of the same dtype, on the current CUDA device. */
int tr_interpolate_cuda(const void *attr, enum tr_dtype dtype, int n_verts, int n_chan,
                        const int32_t *F, int n_faces, const int32_t *face_ids, const float *bary,
                        int width, int height, void *out, char *err, size_t errlen);

/* The C reference of tr_rasterize_cuda: same arguments, bit-identical results. */
int tr_rasterize_ref(const float *V, int n_verts, const int32_t *F, int n_faces, const float *D,
                     int width, int height, float occlusion_truncation, int use_depth_prior,
                     int32_t *face_ids, float *bary, char *err, size_t errlen);

/* The C reference of tr_interpolate_cuda. */
int tr_interpolate_ref(const void *attr, enum tr_dtype dtype, int n_verts, int n_chan,
                       const int32_t *F, int n_faces, const int32_t *face_ids, const float *bary,
                       int width, int height, void *out, char *err, size_t errlen);

/* Check sizes and that every F entry indexes a vertex; -1 naming the first bad entry. */
int tr_check_mesh(int n_verts, const int32_t *F, int n_faces, int width, int height, char *err,
                  size_t errlen);

/* Check that every face id is in [0, n_faces]; -1 naming the first bad pixel. */
int tr_check_face_ids(const int32_t *face_ids, int width, int height, int n_faces, char *err,
                      size_t errlen);

/* IEEE binary16 <-> float, round to nearest even (what __float2half_rn does on the GPU). */
float tr_half_to_float(uint16_t h);
uint16_t tr_float_to_half(float f);

#ifdef __cplusplus
}
#endif

#endif
