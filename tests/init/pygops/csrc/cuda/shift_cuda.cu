// shift_cuda.cu: the CUDA implementation. It reaches Python.h only through <torch/torch.h>
// (extensions.h) with -DTORCH_API_INCLUDE_EXTENSION_H, which BuildExtension adds.
#include <ATen/cuda/CUDAContext.h>

#include "shift_cuda.h"

__global__ void shift_kernel(const float *x, float *out, float a, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = x[i] + a;
}

torch::Tensor shift_cuda(torch::Tensor x, double a)
{
	TORCH_CHECK(x.is_cuda(), "pygops: shift_cuda takes a CUDA tensor");
	auto xc = x.contiguous().to(torch::kFloat);
	auto out = torch::empty_like(xc);
	int64_t n = xc.numel();
	if (n) {
		int64_t g = (n + 255) / 256;
		shift_kernel<<<(unsigned)(g < 65535 ? g : 65535), 256, 0,
		               at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(),
		                                                    out.data_ptr<float>(), (float)a, n);
		C10_CUDA_KERNEL_LAUNCH_CHECK();
	}
	return out;
}
