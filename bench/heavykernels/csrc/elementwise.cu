/* elementwise.cu: fused y = epi(x * scale + bias[col]) + residual, vectorised VEC elements a
 * thread; instantiated over dtype x vector width x epilogue x residual (PyTorch's
 * vectorized_elementwise_kernel pattern). */
#include "hk_common.cuh"

namespace {

template <typename T, int VEC, int EPI, bool RES>
__global__ void ew(const T *__restrict__ x, const T *__restrict__ residual,
		   const T *__restrict__ bias, T *__restrict__ y, long long n, int cols, float scale)
{
	long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
	for (int v = 0; v < VEC; v++) {
		long long i = base + v;
		if (i >= n)
			return;
		float r = hk_type<T>::to(x[i]) * scale;
		if (bias)
			r += hk_type<T>::to(bias[i % cols]);
		r = hk_epilogue_apply<EPI>(r);
		if constexpr (RES)
			r += hk_type<T>::to(residual[i]);
		y[i] = hk_type<T>::from(r);
	}
}

template <typename T, int VEC, int EPI>
int launch(const void *x, const void *res, const void *bias, void *y, long long n, int cols,
	   float scale, cudaStream_t s)
{
	unsigned blocks = (unsigned)((n + 256LL * VEC - 1) / (256LL * VEC));
	if (res)
		ew<T, VEC, EPI, true><<<blocks, 256, 0, s>>>((const T *)x, (const T *)res,
							   (const T *)bias, (T *)y, n, cols, scale);
	else
		ew<T, VEC, EPI, false><<<blocks, 256, 0, s>>>((const T *)x, nullptr, (const T *)bias,
							    (T *)y, n, cols, scale);
	return (int)cudaGetLastError();
}

template <typename T, int VEC>
int by_epi(int epi, const void *x, const void *res, const void *bias, void *y, long long n,
	   int cols, float scale, cudaStream_t s)
{
	switch (epi) {
	case HK_EPI_NONE: return launch<T, VEC, HK_EPI_NONE>(x, res, bias, y, n, cols, scale, s);
	case HK_EPI_RELU: return launch<T, VEC, HK_EPI_RELU>(x, res, bias, y, n, cols, scale, s);
	case HK_EPI_GELU: return launch<T, VEC, HK_EPI_GELU>(x, res, bias, y, n, cols, scale, s);
	case HK_EPI_SILU: return launch<T, VEC, HK_EPI_SILU>(x, res, bias, y, n, cols, scale, s);
	default: return 1;
	}
}

} // namespace

extern "C" int hk_elementwise(int dtype, int vec, int epilogue, const void *x, const void *residual,
			      const void *bias, void *y, long long n, int cols, float scale,
			      void *stream)
{
	HK_DISPATCH_DTYPE(dtype, {
		switch (vec) {
		case 1: return by_epi<scalar_t, 1>(epilogue, x, residual, bias, y, n, cols, scale, HK_STREAM(stream));
		case 2: return by_epi<scalar_t, 2>(epilogue, x, residual, bias, y, n, cols, scale, HK_STREAM(stream));
		case 4: return by_epi<scalar_t, 4>(epilogue, x, residual, bias, y, n, cols, scale, HK_STREAM(stream));
		case 8: return by_epi<scalar_t, 8>(epilogue, x, residual, bias, y, n, cols, scale, HK_STREAM(stream));
		default: return 1;
		}
	});
}
