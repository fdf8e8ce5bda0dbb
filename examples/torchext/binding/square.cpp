// square.cpp: a second binding source that includes torch/extension.h, as a project's
// bindings do when they are split per op. It adds torchext::square to the library ops.cpp
// defines (TORCH_LIBRARY_FRAGMENT). The example sets pch = "on": both are compiled with a
// precompiled torch header forced first (torch/all.h shared by the Pythons of one flag set),
// which cuwheel allows only where the preprocessor finds every file expanding to the same
// text with and without it.
#include <torch/extension.h>

#include <c10/cuda/CUDAGuard.h>
#include <ATen/cuda/CUDAContext.h>

#include "torchext_kernels.h"

namespace {

at::Tensor square_cpu(const at::Tensor &x)
{
	TORCH_CHECK(x.scalar_type() == at::kFloat, "torchext: x must be float32, got ",
		    x.scalar_type());
	at::Tensor xc = x.contiguous();
	at::Tensor out = at::empty_like(xc);
	const float *in = xc.data_ptr<float>();
	float *o = out.data_ptr<float>();
	for (int64_t i = 0, n = xc.numel(); i < n; i++)
		o[i] = in[i] * in[i];
	return out;
}

at::Tensor square_cuda(const at::Tensor &x)
{
	TORCH_CHECK(x.scalar_type() == at::kFloat, "torchext: x must be float32, got ",
		    x.scalar_type());
	c10::cuda::CUDAGuard guard(x.device());
	at::Tensor xc = x.contiguous();
	at::Tensor out = at::empty_like(xc);
	int err = torchext_square_cuda(xc.data_ptr<float>(), out.data_ptr<float>(), xc.numel(),
				       at::cuda::getCurrentCUDAStream().stream());
	TORCH_CHECK(err == 0, "torchext: CUDA error: ", torchext_cuda_error(err));
	return out;
}

} // namespace

TORCH_LIBRARY_FRAGMENT(torchext, m)
{
	m.def("square(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(torchext, CPU, m)
{
	m.impl("square", &square_cpu);
}

TORCH_LIBRARY_IMPL(torchext, CUDA, m)
{
	m.impl("square", &square_cuda);
}
