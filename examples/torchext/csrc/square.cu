// square.cu: out = x * x on the GPU. Shaped like the .cu files of many torch projects: it
// includes torch/extension.h, but behind `#ifndef __CUDACC__`, for host-only helpers that nvcc
// never compiles. nvcc defines __CUDACC__ in every pass over a .cu, so the include is dead for
// it, and cuwheel's preprocessor scan (nvcc -M under nvcc's own defines) says so: the kernels
// stay torch-free and are compiled once per toolkit, not per torch.
#ifndef __CUDACC__
#include <torch/extension.h>
#endif
#include <cuda_runtime.h>

#include "torchext_kernels.h"

namespace {

__global__ void square_kernel(const float *__restrict__ x, float *__restrict__ out, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = x[i] * x[i];
}

} // namespace

extern "C" int torchext_square_cuda(const float *x, float *out, int64_t n, void *stream)
{
	if (n == 0)
		return 0;
	int64_t g = (n + 255) / 256;
	unsigned grid = (unsigned)(g < 65535 ? g : 65535);
	square_kernel<<<grid, 256, 0, (cudaStream_t)stream>>>(x, out, n);
	return (int)cudaGetLastError();
}
