// scale.cu: out = x * alpha for __half, with the __half operators that the -U__CUDA_NO_*
// flags keep available. Includes no torch header: compiled once per toolkit.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "scale.cuh"

__global__ void halfops_scale_kernel(const __half *x, __half alpha, __half *out, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = x[i] * alpha;
}

extern "C" int halfops_scale_cuda(const void *x, float alpha, void *out, int64_t n, void *stream)
{
	if (n == 0)
		return 0;
	int64_t g = (n + 255) / 256;
	halfops_scale_kernel<<<(unsigned)(g < 65535 ? g : 65535), 256, 0, (cudaStream_t)stream>>>(
	    (const __half *)x, __float2half(alpha), (__half *)out, n);
	return (int)cudaGetLastError();
}
