/* rasterize.cu: tile-based alpha compositing of sorted 2D gaussians, forward and backward,
 * modelled on gsplat's rasterize_to_pixels (a block per 16x16 tile, gaussians staged through
 * shared memory in batches), instantiated over channel count x colour dtype (gsplat: channel counts up to 513). */
#include "hk_common.cuh"

namespace {

constexpr int TILE = 16, BLOCK = TILE * TILE;

template <typename T, int CH>
__global__ void __launch_bounds__(BLOCK)
    raster_fwd(const float2 *__restrict__ means2d, const float3 *__restrict__ conics,
	       const T *__restrict__ colors, const float *__restrict__ opac,
	       const int *__restrict__ tile_offsets, const int *__restrict__ flatten_ids,
	       int n_isects, int width, int height, T *__restrict__ render, float *alphas,
	       int *last_ids)
{
	int tiles_x = (width + TILE - 1) / TILE;
	int tile = blockIdx.y * tiles_x + blockIdx.x;
	int px = blockIdx.x * TILE + threadIdx.x % TILE, py = blockIdx.y * TILE + threadIdx.x / TILE;
	bool inside = px < width && py < height;
	int pix = py * width + px;
	int start = tile_offsets[tile];
	int end = (tile + 1 < gridDim.x * gridDim.y) ? tile_offsets[tile + 1] : n_isects;
	__shared__ int s_id[BLOCK];
	__shared__ float3 s_xy_o[BLOCK];
	__shared__ float3 s_conic[BLOCK];
	float T_ = 1.f, out[CH];
#pragma unroll
	for (int c = 0; c < CH; c++)
		out[c] = 0.f;
	int last = -1;
	bool done = !inside;
	for (int b = start; b < end; b += BLOCK) {
		if (__syncthreads_count(done) == BLOCK)
			break;
		int i = b + threadIdx.x;
		if (i < end) {
			int g = flatten_ids[i];
			s_id[threadIdx.x] = g;
			s_xy_o[threadIdx.x] = make_float3(means2d[g].x, means2d[g].y, opac[g]);
			s_conic[threadIdx.x] = conics[g];
		}
		__syncthreads();
		int batch = min(BLOCK, end - b);
		for (int t = 0; t < batch && !done; t++) {
			float3 xo = s_xy_o[t], co = s_conic[t];
			float dx = xo.x - (px + 0.5f), dy = xo.y - (py + 0.5f);
			float sigma = 0.5f * (co.x * dx * dx + co.z * dy * dy) + co.y * dx * dy;
			float alpha = fminf(0.999f, xo.z * __expf(-sigma));
			if (sigma < 0.f || alpha < 1.f / 255.f)
				continue;
			float next_T = T_ * (1.f - alpha);
			if (next_T <= 1e-4f) {
				done = true;
				break;
			}
			int g = s_id[t];
			float w = alpha * T_;
#pragma unroll
			for (int c = 0; c < CH; c++)
				out[c] += hk_type<T>::to(colors[(size_t)g * CH + c]) * w;
			T_ = next_T;
			last = b + t;
		}
	}
	if (inside) {
		alphas[pix] = 1.f - T_;
		last_ids[pix] = last;
#pragma unroll
		for (int c = 0; c < CH; c++)
			render[(size_t)pix * CH + c] = hk_type<T>::from(out[c]);
	}
}

template <typename T, int CH>
__global__ void __launch_bounds__(BLOCK)
    raster_bwd(const float2 *__restrict__ means2d, const float3 *__restrict__ conics,
	       const T *__restrict__ colors, const float *__restrict__ opac,
	       const int *__restrict__ tile_offsets, const int *__restrict__ flatten_ids,
	       int n_isects, int width, int height, const float *__restrict__ alphas,
	       const int *__restrict__ last_ids, const T *__restrict__ v_render,
	       float2 *v_means2d, float3 *v_conics, float *v_colors, float *v_opac)
{
	int tiles_x = (width + TILE - 1) / TILE;
	int tile = blockIdx.y * tiles_x + blockIdx.x;
	int px = blockIdx.x * TILE + threadIdx.x % TILE, py = blockIdx.y * TILE + threadIdx.x / TILE;
	bool inside = px < width && py < height;
	int pix = inside ? py * width + px : 0;
	int start = tile_offsets[tile];
	int end = (tile + 1 < gridDim.x * gridDim.y) ? tile_offsets[tile + 1] : n_isects;
	float T_final = inside ? 1.f - alphas[pix] : 1.f, T_ = T_final;
	int last = inside ? last_ids[pix] : -1;
	float vr[CH], buf[CH];
#pragma unroll
	for (int c = 0; c < CH; c++) {
		vr[c] = inside ? hk_type<T>::to(v_render[(size_t)pix * CH + c]) : 0.f;
		buf[c] = 0.f;
	}
	/* Back to front: undo the compositing one gaussian at a time. */
	for (int i = min(last, end - 1); i >= start; i--) {
		int g = flatten_ids[i];
		float2 m = means2d[g];
		float3 co = conics[g];
		float dx = m.x - (px + 0.5f), dy = m.y - (py + 0.5f);
		float sigma = 0.5f * (co.x * dx * dx + co.z * dy * dy) + co.y * dx * dy;
		float vis = __expf(-sigma), alpha = fminf(0.999f, opac[g] * vis);
		if (!inside || sigma < 0.f || alpha < 1.f / 255.f)
			continue;
		float ra = 1.f / (1.f - alpha);
		T_ *= ra;
		float fac = alpha * T_, v_alpha = 0.f;
#pragma unroll
		for (int c = 0; c < CH; c++) {
			float col = hk_type<T>::to(colors[(size_t)g * CH + c]);
			atomicAdd(&v_colors[(size_t)g * CH + c], fac * vr[c]);
			v_alpha += (col * T_ - buf[c] * ra) * vr[c];
			buf[c] += col * fac;
		}
		float v_sigma = -opac[g] * vis * v_alpha;
		atomicAdd(&v_conics[g].x, 0.5f * v_sigma * dx * dx);
		atomicAdd(&v_conics[g].y, v_sigma * dx * dy);
		atomicAdd(&v_conics[g].z, 0.5f * v_sigma * dy * dy);
		atomicAdd(&v_means2d[g].x, v_sigma * (co.x * dx + co.y * dy));
		atomicAdd(&v_means2d[g].y, v_sigma * (co.y * dx + co.z * dy));
		atomicAdd(&v_opac[g], vis * v_alpha);
	}
	(void)T_final;
}

#define HK_CHANNELS(X) X(1) X(2) X(3) X(4) X(5) X(8) X(9) X(16) X(17) X(32) X(33) X(64)

template <typename T>
int fwd(int channels, const float *means2d, const float *conics, const void *colors,
	const float *opacities, const int *tile_offsets, const int *flatten_ids, int n_isects,
	int width, int height, void *render, float *alphas, int *last_ids, cudaStream_t s)
{
	dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
	switch (channels) {
#define X(C)                                                                                   \
	case C:                                                                                \
		raster_fwd<T, C><<<grid, BLOCK, 0, s>>>(                                       \
		    (const float2 *)means2d, (const float3 *)conics, (const T *)colors,        \
		    opacities, tile_offsets, flatten_ids, n_isects, width, height, (T *)render, \
		    alphas, last_ids);                                                         \
		return (int)cudaGetLastError();
		HK_CHANNELS(X)
#undef X
	default:
		return 1;
	}
}

template <typename T>
int bwd(int channels, const float *means2d, const float *conics, const void *colors,
	const float *opacities, const int *tile_offsets, const int *flatten_ids, int n_isects,
	int width, int height, const float *alphas, const int *last_ids, const void *v_render,
	float *v_means2d, float *v_conics, float *v_colors, float *v_opacities, cudaStream_t s)
{
	dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
	switch (channels) {
#define X(C)                                                                                   \
	case C:                                                                                \
		raster_bwd<T, C><<<grid, BLOCK, 0, s>>>(                                       \
		    (const float2 *)means2d, (const float3 *)conics, (const T *)colors,        \
		    opacities, tile_offsets, flatten_ids, n_isects, width, height, alphas,     \
		    last_ids, (const T *)v_render, (float2 *)v_means2d, (float3 *)v_conics,    \
		    v_colors, v_opacities);                                                    \
		return (int)cudaGetLastError();
		HK_CHANNELS(X)
#undef X
	default:
		return 1;
	}
}

} // namespace

extern "C" int hk_rasterize_fwd(int dtype, int channels, const float *means2d, const float *conics,
				const void *colors, const float *opacities,
				const int *tile_offsets, const int *flatten_ids, int n_isects,
				int width, int height, void *render, float *alphas, int *last_ids,
				void *stream)
{
	HK_DISPATCH_DTYPE(dtype, return fwd<scalar_t>(channels, means2d, conics, colors, opacities,
						      tile_offsets, flatten_ids, n_isects, width,
						      height, render, alphas, last_ids,
						      HK_STREAM(stream)));
}

extern "C" int hk_rasterize_bwd(int dtype, int channels, const float *means2d, const float *conics,
				const void *colors, const float *opacities,
				const int *tile_offsets, const int *flatten_ids, int n_isects,
				int width, int height, const float *alphas, const int *last_ids,
				const void *v_render, float *v_means2d, float *v_conics,
				float *v_colors, float *v_opacities, void *stream)
{
	HK_DISPATCH_DTYPE(dtype, return bwd<scalar_t>(channels, means2d, conics, colors, opacities,
						      tile_offsets, flatten_ids, n_isects, width,
						      height, alphas, last_ids, v_render, v_means2d,
						      v_conics, v_colors, v_opacities,
						      HK_STREAM(stream)));
}
