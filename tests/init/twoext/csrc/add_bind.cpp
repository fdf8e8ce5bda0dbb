// add_bind.cpp: the module twoext._add (per Python).
#include <torch/extension.h>

#include <ATen/cuda/CUDAContext.h>

#include "twoext.cuh"

static at::Tensor add(const at::Tensor &x, const at::Tensor &y)
{
	TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat && x.sizes() == y.sizes(),
	            "twoext: x and y must be CUDA float tensors of one shape");
	at::Tensor xc = x.contiguous(), yc = y.contiguous(), out = at::empty_like(xc);
	int rc = twoext_add_cuda(xc.data_ptr<float>(), yc.data_ptr<float>(), out.data_ptr<float>(),
	                          xc.numel(), at::cuda::getCurrentCUDAStream().stream());
	TORCH_CHECK(rc == 0, "twoext: the kernel failed (CUDA error ", rc, ")");
	return out;
}

PYBIND11_MODULE(_add, m)
{
	m.def("add", &add);
	m.def("version", [] { return TWOEXT_MINOR; });
}
