// ops.cu: the CUDA kernels. Includes no torch header, so cuwheel compiles it once per toolkit.
#include <cuda_runtime.h>

#include "gelu.h"
#include "torchext_kernels.h"

namespace {

__global__ void scaled_add_kernel(const float *__restrict__ x, const float *__restrict__ y,
				  float alpha, float *__restrict__ out, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = x[i] + alpha * y[i];
}

__global__ void bias_gelu_kernel(const float *__restrict__ x, const float *__restrict__ bias,
				 float *__restrict__ out, int64_t rows, int64_t cols)
{
	int64_t n = rows * cols;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = torchext_gelu_tanh(x[i] + bias[i % cols]);
}

unsigned grid_for(int64_t n, unsigned block)
{
	int64_t g = (n + block - 1) / block;
	return (unsigned)(g < 65535 ? (g > 0 ? g : 1) : 65535);
}

} // namespace

extern "C" int torchext_scaled_add_cuda(const float *x, const float *y, float alpha, float *out,
					int64_t n, void *stream)
{
	if (n == 0)
		return 0;
	scaled_add_kernel<<<grid_for(n, 256), 256, 0, (cudaStream_t)stream>>>(x, y, alpha, out, n);
	return (int)cudaGetLastError();
}

extern "C" int torchext_bias_gelu_cuda(const float *x, const float *bias, float *out,
				       int64_t rows, int64_t cols, void *stream)
{
	if (rows * cols == 0)
		return 0;
	bias_gelu_kernel<<<grid_for(rows * cols, 256), 256, 0, (cudaStream_t)stream>>>(
	    x, bias, out, rows, cols);
	return (int)cudaGetLastError();
}

extern "C" const char *torchext_cuda_error(int err)
{
	return cudaGetErrorString((cudaError_t)err);
}
