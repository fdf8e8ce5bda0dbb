/* layernorm.cu: LayerNorm forward and backward, a warp per row with COLS/32 values a thread in
 * registers (apex's fused layer norm), instantiated over dtype x width. */
#include "hk_common.cuh"

namespace {

template <typename T, int COLS>
__global__ void ln_fwd(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b,
		       T *__restrict__ y, float *mean, float *rstd, int rows, int cols, float eps)
{
	constexpr int PER = COLS / 32;
	int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
	if (row >= rows)
		return;
	float v[PER], s = 0.f;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		v[i] = c < cols ? hk_type<T>::to(x[(size_t)row * cols + c]) : 0.f;
		s += v[i];
	}
	float mu = hk_warp_sum(s) / cols, var = 0.f;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		float d = c < cols ? v[i] - mu : 0.f;
		var += d * d;
	}
	float rs = rsqrtf(hk_warp_sum(var) / cols + eps);
	if (lane == 0) {
		mean[row] = mu;
		rstd[row] = rs;
	}
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		if (c < cols)
			y[(size_t)row * cols + c] = hk_type<T>::from(
			    (v[i] - mu) * rs * hk_type<T>::to(w[c]) + hk_type<T>::to(b[c]));
	}
}

template <typename T, int COLS>
__global__ void ln_bwd(const T *__restrict__ dy, const T *__restrict__ x, const T *__restrict__ w,
		       const float *mean, const float *rstd, T *__restrict__ dx, float *dw, float *db,
		       int rows, int cols)
{
	constexpr int PER = COLS / 32;
	int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
	if (row >= rows)
		return;
	float mu = mean[row], rs = rstd[row];
	float xh[PER], g[PER], s1 = 0.f, s2 = 0.f;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		if (c < cols) {
			float d = hk_type<T>::to(dy[(size_t)row * cols + c]);
			xh[i] = (hk_type<T>::to(x[(size_t)row * cols + c]) - mu) * rs;
			g[i] = d * hk_type<T>::to(w[c]);
			atomicAdd(&dw[c], d * xh[i]);
			atomicAdd(&db[c], d);
		} else {
			xh[i] = g[i] = 0.f;
		}
		s1 += g[i];
		s2 += g[i] * xh[i];
	}
	s1 = hk_warp_sum(s1) / cols;
	s2 = hk_warp_sum(s2) / cols;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		if (c < cols)
			dx[(size_t)row * cols + c] = hk_type<T>::from(rs * (g[i] - s1 - xh[i] * s2));
	}
}

#define HK_LN_WIDTHS(X) X(64) X(128) X(256) X(512) X(768) X(1024) X(2048) X(4096)

template <typename T>
int fwd(const void *x, const void *w, const void *b, void *y, float *mean, float *rstd, int rows,
	int cols, float eps, cudaStream_t s)
{
	dim3 grid((rows + 3) / 4);
#define X(W)                                                                                   \
	if (cols <= W) {                                                                       \
		ln_fwd<T, W><<<grid, 128, 0, s>>>((const T *)x, (const T *)w, (const T *)b,    \
						  (T *)y, mean, rstd, rows, cols, eps);        \
		return (int)cudaGetLastError();                                                \
	}
	HK_LN_WIDTHS(X)
#undef X
	return 1;
}

template <typename T>
int bwd(const void *dy, const void *x, const void *w, const float *mean, const float *rstd,
	void *dx, float *dw, float *db, int rows, int cols, cudaStream_t s)
{
	dim3 grid((rows + 3) / 4);
#define X(W)                                                                                   \
	if (cols <= W) {                                                                       \
		ln_bwd<T, W><<<grid, 128, 0, s>>>((const T *)dy, (const T *)x, (const T *)w,  \
						  mean, rstd, (T *)dx, dw, db, rows, cols);    \
		return (int)cudaGetLastError();                                                \
	}
	HK_LN_WIDTHS(X)
#undef X
	return 1;
}

} // namespace

extern "C" int hk_layernorm_fwd(int dtype, const void *x, const void *w, const void *b, void *y,
				float *mean, float *rstd, int rows, int cols, float eps,
				void *stream)
{
	HK_DISPATCH_DTYPE(dtype, return fwd<scalar_t>(x, w, b, y, mean, rstd, rows, cols, eps,
						      HK_STREAM(stream)));
}

extern "C" int hk_layernorm_bwd(int dtype, const void *dy, const void *x, const void *w,
				const float *mean, const float *rstd, void *dx, float *dw,
				float *db, int rows, int cols, void *stream)
{
	HK_DISPATCH_DTYPE(dtype, return bwd<scalar_t>(dy, x, w, mean, rstd, dx, dw, db, rows, cols,
						      HK_STREAM(stream)));
}
