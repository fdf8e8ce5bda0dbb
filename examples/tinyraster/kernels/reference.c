/* reference.c: the C reference of tinyraster (no CUDA): used where there is no GPU and to check
 * the GPU, which must match it exactly. Compile with -ffp-contract=off (see raster_math.h). */
#include <stdlib.h>
#include <string.h>

#include "tinyraster.h"
#include "tr_internal.h"
#include "raster_math.h"

int tr_rasterize_ref(const float *V, int n_verts, const int32_t *F, int n_faces, const float *D,
                     int width, int height, float occlusion_truncation, int use_depth_prior,
                     int32_t *face_ids, float *bary, char *err, size_t errlen)
{
	if (tr_check_mesh(n_verts, F, n_faces, width, height, err, errlen))
		return -1;
	if (use_depth_prior && !D) {
		tr_set_err(err, errlen, "use_depth_prior is set but no depth prior D was given");
		return -1;
	}
	size_t npix = (size_t)width * (size_t)height;
	struct tr_svert *sv = malloc(((size_t)n_verts + 1) * sizeof *sv);
	uint64_t *zbuf = malloc(npix * sizeof *zbuf);
	if (!sv || !zbuf) {
		free(sv);
		free(zbuf);
		tr_set_err(err, errlen, "out of memory for a %dx%d image", width, height);
		return -1;
	}
	for (int i = 0; i < n_verts; i++)
		sv[i] = tr_project(V + (size_t)i * 4, width, height);
	for (size_t p = 0; p < npix; p++)
		zbuf[p] = TR_KEY_EMPTY;

	/* Face by face over its bounding box only: the minimum of the keys does not depend on the
	 * order, so this equals the GPU's atomicMin result. */
	for (int f = 0; f < n_faces; f++) {
		struct tr_svert a = sv[F[3 * f]], b = sv[F[3 * f + 1]], c = sv[F[3 * f + 2]];
		struct tr_bbox bb = tr_face_bbox(a, b, c, width, height);
		for (int py = bb.y0; py <= bb.y1; py++) {
			for (int px = bb.x0; px <= bb.x1; px++) {
				size_t p = (size_t)py * width + px;
				const float *prior = use_depth_prior ? D + p : NULL;
				uint64_t key = tr_fragment_key(a, b, c, f, px, py, prior,
				                               occlusion_truncation);
				if (key < zbuf[p])
					zbuf[p] = key;
			}
		}
	}

	for (int py = 0; py < height; py++) {
		for (int px = 0; px < width; px++) {
			size_t p = (size_t)py * width + px;
			float *out = bary + 3 * p;
			if (zbuf[p] == TR_KEY_EMPTY) {
				face_ids[p] = 0;
				out[0] = out[1] = out[2] = 0.0f;
				continue;
			}
			int f = (int)(uint32_t)zbuf[p] - 1;
			face_ids[p] = f + 1;
			tr_resolve_bary(sv[F[3 * f]], sv[F[3 * f + 1]], sv[F[3 * f + 2]], px, py,
			                out);
		}
	}
	free(sv);
	free(zbuf);
	return 0;
}

int tr_interpolate_ref(const void *attr, enum tr_dtype dtype, int n_verts, int n_chan,
                       const int32_t *F, int n_faces, const int32_t *face_ids, const float *bary,
                       int width, int height, void *out, char *err, size_t errlen)
{
	if (tr_check_interp(dtype, n_verts, n_chan, F, n_faces, face_ids, width, height, err,
	                    errlen))
		return -1;
	const float *af = attr;
	const uint16_t *ah = attr;
	float *of = out;
	uint16_t *oh = out;
	for (size_t p = 0; p < (size_t)width * height; p++) {
		int f = face_ids[p] - 1;
		const float *b = bary + 3 * p;
		for (int ch = 0; ch < n_chan; ch++) {
			size_t o = p * (size_t)n_chan + ch;
			float v = 0.0f;
			if (f >= 0) {
				size_t i0 = (size_t)F[3 * f] * n_chan + ch;
				size_t i1 = (size_t)F[3 * f + 1] * n_chan + ch;
				size_t i2 = (size_t)F[3 * f + 2] * n_chan + ch;
				if (dtype == TR_DTYPE_F16)
					v = tr_blend(b, tr_half_to_float(ah[i0]),
					             tr_half_to_float(ah[i1]),
					             tr_half_to_float(ah[i2]));
				else
					v = tr_blend(b, af[i0], af[i1], af[i2]);
			}
			if (dtype == TR_DTYPE_F16)
				oh[o] = tr_float_to_half(v);
			else
				of[o] = v;
		}
	}
	return 0;
}
