/* gemm.cu: a shared-memory tiled GEMM with a fused bias + activation epilogue, instantiated over
 * dtype x tile x epilogue x bias, the way flash-attn/cutlass-style projects instantiate tiles. */
#include "hk_common.cuh"

namespace {

constexpr int BK = 16;

/* Block of 16x16 threads computes a TILE x TILE tile of C; each thread a (TILE/16)^2 patch. */
template <typename T, int TILE, int EPI, bool BIAS>
__global__ void __launch_bounds__(256) gemm_kernel(const T *__restrict__ a, const T *__restrict__ b,
						   const T *__restrict__ bias, T *__restrict__ c,
						   int m, int n, int k, float alpha)
{
	constexpr int R = TILE / 16;
	__shared__ float as[BK][TILE + 1];
	__shared__ float bs[BK][TILE + 1];
	const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
	const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
	float acc[R][R];
#pragma unroll
	for (int i = 0; i < R; i++)
#pragma unroll
		for (int j = 0; j < R; j++)
			acc[i][j] = 0.f;
	for (int k0 = 0; k0 < k; k0 += BK) {
		for (int idx = threadIdx.x; idx < BK * TILE; idx += 256) {
			int kk = idx / TILE, rr = idx % TILE;
			int ar = row0 + rr, ac = k0 + kk;
			as[kk][rr] = (ar < m && ac < k) ? hk_type<T>::to(a[(size_t)ar * k + ac]) : 0.f;
			int br = k0 + kk, bc = col0 + rr;
			bs[kk][rr] = (br < k && bc < n) ? hk_type<T>::to(b[(size_t)br * n + bc]) : 0.f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float ra[R], rb[R];
#pragma unroll
			for (int i = 0; i < R; i++)
				ra[i] = as[kk][ty + 16 * i];
#pragma unroll
			for (int j = 0; j < R; j++)
				rb[j] = bs[kk][tx + 16 * j];
#pragma unroll
			for (int i = 0; i < R; i++)
#pragma unroll
				for (int j = 0; j < R; j++)
					acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < R; i++) {
		int r = row0 + ty + 16 * i;
		if (r >= m)
			continue;
#pragma unroll
		for (int j = 0; j < R; j++) {
			int col = col0 + tx + 16 * j;
			if (col >= n)
				continue;
			float v = alpha * acc[i][j];
			if constexpr (BIAS)
				v += hk_type<T>::to(bias[col]);
			c[(size_t)r * n + col] = hk_type<T>::from(hk_epilogue_apply<EPI>(v));
		}
	}
}

template <typename T, int TILE, int EPI>
int launch(const void *a, const void *b, const void *bias, void *c, int m, int n, int k,
	   float alpha, cudaStream_t s)
{
	dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
	if (bias)
		gemm_kernel<T, TILE, EPI, true><<<grid, 256, 0, s>>>(
		    (const T *)a, (const T *)b, (const T *)bias, (T *)c, m, n, k, alpha);
	else
		gemm_kernel<T, TILE, EPI, false><<<grid, 256, 0, s>>>(
		    (const T *)a, (const T *)b, nullptr, (T *)c, m, n, k, alpha);
	return (int)cudaGetLastError();
}

template <typename T, int TILE>
int by_epilogue(int epi, const void *a, const void *b, const void *bias, void *c, int m, int n,
		int k, float alpha, cudaStream_t s)
{
	switch (epi) {
	case HK_EPI_NONE: return launch<T, TILE, HK_EPI_NONE>(a, b, bias, c, m, n, k, alpha, s);
	case HK_EPI_RELU: return launch<T, TILE, HK_EPI_RELU>(a, b, bias, c, m, n, k, alpha, s);
	case HK_EPI_GELU: return launch<T, TILE, HK_EPI_GELU>(a, b, bias, c, m, n, k, alpha, s);
	case HK_EPI_SILU: return launch<T, TILE, HK_EPI_SILU>(a, b, bias, c, m, n, k, alpha, s);
	default: return 1;
	}
}

} // namespace

extern "C" int hk_gemm(int dtype, int tile, int epilogue, const void *a, const void *b,
		       const void *bias, void *c, int m, int n, int k, float alpha, void *stream)
{
	HK_DISPATCH_DTYPE(dtype, {
		switch (tile) {
		case 16: return by_epilogue<scalar_t, 16>(epilogue, a, b, bias, c, m, n, k, alpha, HK_STREAM(stream));
		case 32: return by_epilogue<scalar_t, 32>(epilogue, a, b, bias, c, m, n, k, alpha, HK_STREAM(stream));
		case 64: return by_epilogue<scalar_t, 64>(epilogue, a, b, bias, c, m, n, k, alpha, HK_STREAM(stream));
		default: return 1;
		}
	});
}
