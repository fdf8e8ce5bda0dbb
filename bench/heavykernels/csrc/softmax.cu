/* softmax.cu: warp-per-row softmax / log-softmax, each thread holding COLS/32 values in
 * registers (the "persistent softmax" of apex/Megatron), instantiated over dtype x width x log. */
#include "hk_common.cuh"

namespace {

template <typename T, int COLS, bool LOG>
__global__ void softmax_warp(const T *__restrict__ x, T *__restrict__ y, int rows, int cols)
{
	constexpr int PER = COLS / 32;
	int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x & 31;
	if (row >= rows)
		return;
	float v[PER];
	float mx = -INFINITY;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		v[i] = c < cols ? hk_type<T>::to(x[(size_t)row * cols + c]) : -INFINITY;
		mx = fmaxf(mx, v[i]);
	}
	mx = hk_warp_max(mx);
	float sum = 0.f;
#pragma unroll
	for (int i = 0; i < PER; i++) {
		v[i] = LOG ? v[i] - mx : __expf(v[i] - mx);
		sum += LOG ? __expf(v[i]) : v[i];
	}
	sum = hk_warp_sum(sum);
#pragma unroll
	for (int i = 0; i < PER; i++) {
		int c = lane + 32 * i;
		if (c < cols)
			y[(size_t)row * cols + c] = hk_type<T>::from(LOG ? v[i] - __logf(sum) : v[i] / sum);
	}
}

/* Rows wider than 1024: a block per row, three passes through global memory. */
template <typename T, bool LOG>
__global__ void softmax_block(const T *__restrict__ x, T *__restrict__ y, int cols)
{
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *yr = y + (size_t)blockIdx.x * cols;
	float mx = -INFINITY;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		mx = fmaxf(mx, hk_type<T>::to(xr[c]));
	mx = hk_block_max(mx);
	float sum = 0.f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		sum += __expf(hk_type<T>::to(xr[c]) - mx);
	sum = hk_block_sum(sum);
	for (int c = threadIdx.x; c < cols; c += blockDim.x) {
		float v = hk_type<T>::to(xr[c]) - mx;
		yr[c] = hk_type<T>::from(LOG ? v - __logf(sum) : __expf(v) / sum);
	}
}

template <typename T, bool LOG>
int launch(const void *x, void *y, int rows, int cols, cudaStream_t s)
{
	const T *xi = (const T *)x;
	T *yo = (T *)y;
	dim3 grid((rows + 3) / 4);
	if (cols <= 32) softmax_warp<T, 32, LOG><<<grid, 128, 0, s>>>(xi, yo, rows, cols);
	else if (cols <= 64) softmax_warp<T, 64, LOG><<<grid, 128, 0, s>>>(xi, yo, rows, cols);
	else if (cols <= 128) softmax_warp<T, 128, LOG><<<grid, 128, 0, s>>>(xi, yo, rows, cols);
	else if (cols <= 256) softmax_warp<T, 256, LOG><<<grid, 128, 0, s>>>(xi, yo, rows, cols);
	else if (cols <= 512) softmax_warp<T, 512, LOG><<<grid, 128, 0, s>>>(xi, yo, rows, cols);
	else if (cols <= 1024) softmax_warp<T, 1024, LOG><<<grid, 128, 0, s>>>(xi, yo, rows, cols);
	else softmax_block<T, LOG><<<rows, 512, 0, s>>>(xi, yo, cols);
	return (int)cudaGetLastError();
}

} // namespace

extern "C" int hk_softmax(int dtype, int log, const void *x, void *y, int rows, int cols,
			  void *stream)
{
	HK_DISPATCH_DTYPE(dtype, {
		return log ? launch<scalar_t, true>(x, y, rows, cols, HK_STREAM(stream))
			   : launch<scalar_t, false>(x, y, rows, cols, HK_STREAM(stream));
	});
}
