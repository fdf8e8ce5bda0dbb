// saxpy_kernel.cu: the kernel and its launcher. No torch header: compiled once per toolkit.
#include <cuda_runtime.h>

#include "saxpy_kernel.h"

__global__ void saxpy_kernel(float a, const float *x, const float *y, float *out, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (; i < n; i += stride)
		out[i] = __fmaf_rn(a, x[i], y[i]);
}

extern "C" int torchstable_saxpy_cuda(float a, const float *x, const float *y, float *out,
                                      int64_t n, void *stream)
{
	if (n == 0)
		return 0;
	int threads = 256;
	int64_t blocks = (n + threads - 1) / threads;
	if (blocks > 65535)
		blocks = 65535;
	saxpy_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(a, x, y, out, n);
	return (int)cudaGetLastError();
}
