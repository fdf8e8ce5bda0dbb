// scale.cu: an op whose CUDA kernel and CPU path live in one .cu that includes
// torch/extension.h (and so Python.h and pybind11), as many projects' .cu files do. It uses
// none of Python's headers: cuwheel proves that (plan: "Python-free by proof") and compiles it
// once per (toolkit, torch, flags) with nvcc, shared by every Python's wheel.
#include <torch/extension.h>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

namespace {

__global__ void scale_kernel(const float *__restrict__ x, float s, float *__restrict__ out,
                             int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = s * x[i];
}

at::Tensor scale_cpu(const at::Tensor &x, double s)
{
	TORCH_CHECK(x.scalar_type() == at::kFloat, "torchext: x must be float32, got ",
	            x.scalar_type());
	return x.contiguous() * (float)s;
}

at::Tensor scale_cuda(const at::Tensor &x, double s)
{
	TORCH_CHECK(x.scalar_type() == at::kFloat, "torchext: x must be float32, got ",
	            x.scalar_type());
	c10::cuda::CUDAGuard guard(x.device());
	at::Tensor xc = x.contiguous();
	at::Tensor out = at::empty_like(xc);
	int64_t n = xc.numel();
	if (n) {
		int64_t blocks = (n + 255) / 256;
		scale_kernel<<<(unsigned)(blocks < 65535 ? blocks : 65535), 256, 0,
		               at::cuda::getCurrentCUDAStream().stream()>>>(
		    xc.data_ptr<float>(), (float)s, out.data_ptr<float>(), n);
		C10_CUDA_KERNEL_LAUNCH_CHECK();
	}
	return out;
}

} // namespace

TORCH_LIBRARY_FRAGMENT(torchext, m)
{
	m.def("scale(Tensor x, float s) -> Tensor");
}

TORCH_LIBRARY_IMPL(torchext, CPU, m)
{
	m.impl("scale", &scale_cpu);
}

TORCH_LIBRARY_IMPL(torchext, CUDA, m)
{
	m.impl("scale", &scale_cuda);
}
