/* raster_math.h: the per-vertex, per-face and per-fragment math shared by the CUDA kernels and the
 * C reference, written once so that both compute bit-identical results. */
#ifndef TR_RASTER_MATH_H
#define TR_RASTER_MATH_H

#include <math.h>
#include <stdint.h>

/*
 * Exactness: every float operation goes through TR_ADD/TR_SUB/TR_MUL/TR_DIV. On the device these
 * are the _rn intrinsics, which nvcc never fuses into an FMA whatever --fmad says; on the host they
 * are plain IEEE operations, which stay unfused as long as reference.c is compiled with
 * -ffp-contract=off (the default of gcc in -std=c17 mode; say it anyway). Same operations in the
 * same order on IEEE single precision give the same bits, so GPU and CPU agree exactly.
 */
#if defined(__CUDACC__)
#define TR_FN static __device__ __forceinline__
#if defined(__CUDA_ARCH__)
#define TR_ADD(a, b) __fadd_rn((a), (b))
#define TR_SUB(a, b) __fsub_rn((a), (b))
#define TR_MUL(a, b) __fmul_rn((a), (b))
#define TR_DIV(a, b) __fdiv_rn((a), (b))
#else
#define TR_ADD(a, b) ((a) + (b))
#define TR_SUB(a, b) ((a) - (b))
#define TR_MUL(a, b) ((a) * (b))
#define TR_DIV(a, b) ((a) / (b))
#endif
#else
#define TR_FN        static inline
#define TR_ADD(a, b) ((a) + (b))
#define TR_SUB(a, b) ((a) - (b))
#define TR_MUL(a, b) ((a) * (b))
#define TR_DIV(a, b) ((a) / (b))
#endif

/* Depth quantisation step of the z-buffer key, as in Hunyuan3D (2 << 17). */
#define TR_DEPTH_SCALE 262144.0f
/* Past this depth the quantised value would not fit 32 bits: saturate. */
#define TR_DEPTH_MAX 16383.0f
#define TR_KEY_EMPTY UINT64_MAX

/* A vertex in screen space: pixel coordinates, depth in [0, 1] inside the frustum, and clip w. */
struct tr_svert {
	float x, y, z, w;
};

/* A face's pixel bounding box, inclusive, clamped to the image; empty when x1 < x0. */
struct tr_bbox {
	int x0, y0, x1, y1;
};

TR_FN float tr_min3(float a, float b, float c)
{
	float m = a < b ? a : b;
	return m < c ? m : c;
}

TR_FN float tr_max3(float a, float b, float c)
{
	float m = a > b ? a : b;
	return m > c ? m : c;
}

/* Clip space -> screen space; the mapping of Hunyuan3D's rasterizer. */
TR_FN struct tr_svert tr_project(const float *v, int width, int height)
{
	struct tr_svert s;
	float w = v[3];
	s.x = TR_ADD(TR_MUL(TR_ADD(TR_MUL(TR_DIV(v[0], w), 0.5f), 0.5f), (float)(width - 1)), 0.5f);
	s.y =
	    TR_ADD(TR_MUL(TR_ADD(TR_MUL(TR_DIV(v[1], w), 0.5f), 0.5f), (float)(height - 1)), 0.5f);
	s.z = TR_ADD(TR_MUL(TR_DIV(v[2], w), 0.49999f), 0.5f);
	s.w = w;
	return s;
}

/* True when the value is a finite float of sane magnitude (false for NaN and infinities). */
TR_FN int tr_sane(float f)
{
	return f > -1e30f && f < 1e30f;
}

/* The pixels whose centres may fall inside the face; empty for culled faces (w <= 0, NaN). */
TR_FN struct tr_bbox tr_face_bbox(struct tr_svert a, struct tr_svert b, struct tr_svert c,
                                  int width, int height)
{
	struct tr_bbox r = {0, 0, -1, -1};
	if (!(a.w > 0.0f && b.w > 0.0f && c.w > 0.0f))
		return r;
	if (!(tr_sane(a.x) && tr_sane(a.y) && tr_sane(a.z) && tr_sane(b.x) && tr_sane(b.y) &&
	      tr_sane(b.z) && tr_sane(c.x) && tr_sane(c.y) && tr_sane(c.z)))
		return r;
	float xmin = tr_min3(a.x, b.x, c.x), xmax = tr_max3(a.x, b.x, c.x);
	float ymin = tr_min3(a.y, b.y, c.y), ymax = tr_max3(a.y, b.y, c.y);
	/* Centre px + 0.5 in [xmin, xmax] implies px in [floor(xmin) - 1, floor(xmax)]: a superset,
	 * the coverage test decides. Clamp in float first so the int conversions are defined. */
	if (xmax < 0.0f || ymax < 0.0f || xmin > (float)width || ymin > (float)height)
		return r;
	xmin = xmin < -1.0f ? -1.0f : xmin;
	ymin = ymin < -1.0f ? -1.0f : ymin;
	xmax = xmax > (float)width ? (float)width : xmax;
	ymax = ymax > (float)height ? (float)height : ymax;
	r.x0 = (int)floorf(xmin) - 1;
	r.y0 = (int)floorf(ymin) - 1;
	r.x1 = (int)floorf(xmax);
	r.y1 = (int)floorf(ymax);
	r.x0 = r.x0 < 0 ? 0 : r.x0;
	r.y0 = r.y0 < 0 ? 0 : r.y0;
	r.x1 = r.x1 > width - 1 ? width - 1 : r.x1;
	r.y1 = r.y1 > height - 1 ? height - 1 : r.y1;
	return r;
}

/* Twice the signed area of (a, b, c), in Hunyuan3D's operand order. */
TR_FN float tr_area2(float ax, float ay, float bx, float by, float cx, float cy)
{
	return TR_SUB(TR_MUL(TR_SUB(cx, ax), TR_SUB(by, ay)),
	              TR_MUL(TR_SUB(bx, ax), TR_SUB(cy, ay)));
}

/* Screen-space barycentrics of point (px, py); false when the face is degenerate or the point is
 * outside (a point on an edge is inside, for both faces that share it). */
TR_FN int tr_bary2d(struct tr_svert a, struct tr_svert b, struct tr_svert c, float px, float py,
                    float *out)
{
	float area = tr_area2(a.x, a.y, b.x, b.y, c.x, c.y);
	if (area == 0.0f)
		return 0;
	float inv = TR_DIV(1.0f, area);
	float beta = TR_MUL(tr_area2(a.x, a.y, px, py, c.x, c.y), inv);
	float gamma = TR_MUL(tr_area2(a.x, a.y, b.x, b.y, px, py), inv);
	float alpha = TR_SUB(TR_SUB(1.0f, beta), gamma);
	out[0] = alpha;
	out[1] = beta;
	out[2] = gamma;
	return alpha >= 0.0f && alpha <= 1.0f && beta >= 0.0f && beta <= 1.0f && gamma >= 0.0f &&
	       gamma <= 1.0f;
}

/* The z-buffer key of face `face` at pixel (px, py), or TR_KEY_EMPTY when the fragment is not
 * produced (outside, behind the near plane, or not behind the depth prior). `prior` is D[pixel]
 * when a depth prior is used, else NULL. */
TR_FN uint64_t tr_fragment_key(struct tr_svert a, struct tr_svert b, struct tr_svert c, int face,
                               int px, int py, const float *prior, float occlusion_truncation)
{
	float bc[3];
	if (!tr_bary2d(a, b, c, TR_ADD((float)px, 0.5f), TR_ADD((float)py, 0.5f), bc))
		return TR_KEY_EMPTY;
	float depth = TR_ADD(TR_ADD(TR_MUL(bc[0], a.z), TR_MUL(bc[1], b.z)), TR_MUL(bc[2], c.z));
	float thres = 0.0f;
	if (prior)
		thres = TR_ADD(TR_ADD(TR_MUL(*prior, 0.49999f), 0.5f), occlusion_truncation);
	/* Written so that a NaN depth or threshold rejects the fragment. Negative depths are always
	 * dropped: in Hunyuan3D they wrap to huge keys that never win. */
	if (!(depth >= thres) || !(depth >= 0.0f))
		return TR_KEY_EMPTY;
	uint32_t q = depth < TR_DEPTH_MAX ? (uint32_t)TR_MUL(depth, TR_DEPTH_SCALE) : 0xffffff00u;
	return ((uint64_t)q << 32) | (uint32_t)(face + 1);
}

/* Perspective-correct barycentrics of a covered pixel, from its face's screen vertices. */
TR_FN void tr_resolve_bary(struct tr_svert a, struct tr_svert b, struct tr_svert c, int px, int py,
                           float *out)
{
	float bc[3] = {0.0f, 0.0f, 0.0f};
	tr_bary2d(a, b, c, TR_ADD((float)px, 0.5f), TR_ADD((float)py, 0.5f), bc);
	bc[0] = TR_DIV(bc[0], a.w);
	bc[1] = TR_DIV(bc[1], b.w);
	bc[2] = TR_DIV(bc[2], c.w);
	float k = TR_DIV(1.0f, TR_ADD(TR_ADD(bc[0], bc[1]), bc[2]));
	out[0] = TR_MUL(bc[0], k);
	out[1] = TR_MUL(bc[1], k);
	out[2] = TR_MUL(bc[2], k);
}

/* Barycentric blend of three attribute values, in one fixed order. */
TR_FN float tr_blend(const float *b, float a0, float a1, float a2)
{
	return TR_ADD(TR_ADD(TR_MUL(b[0], a0), TR_MUL(b[1], a1)), TR_MUL(b[2], a2));
}

#endif
