// ops.cpp: the torch binding, the only file that includes torch headers: built per (Python,
// torch). Registers torchext::scaled_add and torchext::bias_gelu with TORCH_LIBRARY, with a CPU
// and a CUDA implementation, and makes the module importable (PyInit__C) through pybind11.
#include <torch/extension.h>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "torchext_kernels.h"

namespace {

void check_float(const at::Tensor &t, const char *name)
{
	TORCH_CHECK(t.scalar_type() == at::kFloat, "torchext: ", name, " must be float32, got ",
		    t.scalar_type());
}

at::Tensor scaled_add_cpu(const at::Tensor &x, const at::Tensor &y, double alpha)
{
	check_float(x, "x");
	check_float(y, "y");
	TORCH_CHECK(x.sizes() == y.sizes(), "torchext: x and y must have the same shape");
	at::Tensor xc = x.contiguous(), yc = y.contiguous();
	at::Tensor out = at::empty_like(xc);
	torchext_scaled_add_cpu(xc.data_ptr<float>(), yc.data_ptr<float>(), (float)alpha,
				out.data_ptr<float>(), xc.numel());
	return out;
}

at::Tensor bias_gelu_cpu(const at::Tensor &x, const at::Tensor &bias)
{
	check_float(x, "x");
	check_float(bias, "bias");
	TORCH_CHECK(bias.dim() == 1 && x.dim() >= 1 && x.size(-1) == bias.size(0),
		    "torchext: bias must be 1-D with x.size(-1) elements");
	at::Tensor xc = x.contiguous(), bc = bias.contiguous();
	at::Tensor out = at::empty_like(xc);
	int64_t cols = bc.numel();
	torchext_bias_gelu_cpu(xc.data_ptr<float>(), bc.data_ptr<float>(), out.data_ptr<float>(),
			       cols ? xc.numel() / cols : 0, cols);
	return out;
}

void check_cuda(int err)
{
	TORCH_CHECK(err == 0, "torchext: CUDA error: ", torchext_cuda_error(err));
}

at::Tensor scaled_add_cuda(const at::Tensor &x, const at::Tensor &y, double alpha)
{
	check_float(x, "x");
	check_float(y, "y");
	TORCH_CHECK(x.sizes() == y.sizes(), "torchext: x and y must have the same shape");
	TORCH_CHECK(y.device() == x.device(), "torchext: x and y must be on one device");
	c10::cuda::CUDAGuard guard(x.device());
	at::Tensor xc = x.contiguous(), yc = y.contiguous();
	at::Tensor out = at::empty_like(xc);
	check_cuda(torchext_scaled_add_cuda(xc.data_ptr<float>(), yc.data_ptr<float>(),
					    (float)alpha, out.data_ptr<float>(), xc.numel(),
					    at::cuda::getCurrentCUDAStream().stream()));
	return out;
}

at::Tensor bias_gelu_cuda(const at::Tensor &x, const at::Tensor &bias)
{
	check_float(x, "x");
	check_float(bias, "bias");
	TORCH_CHECK(bias.dim() == 1 && x.dim() >= 1 && x.size(-1) == bias.size(0),
		    "torchext: bias must be 1-D with x.size(-1) elements");
	TORCH_CHECK(bias.device() == x.device(), "torchext: x and bias must be on one device");
	c10::cuda::CUDAGuard guard(x.device());
	at::Tensor xc = x.contiguous(), bc = bias.contiguous();
	at::Tensor out = at::empty_like(xc);
	int64_t cols = bc.numel();
	check_cuda(torchext_bias_gelu_cuda(xc.data_ptr<float>(), bc.data_ptr<float>(),
					   out.data_ptr<float>(), cols ? xc.numel() / cols : 0,
					   cols, at::cuda::getCurrentCUDAStream().stream()));
	return out;
}

} // namespace

TORCH_LIBRARY(torchext, m)
{
	m.def("scaled_add(Tensor x, Tensor y, float alpha) -> Tensor");
	m.def("bias_gelu(Tensor x, Tensor bias) -> Tensor");
}

TORCH_LIBRARY_IMPL(torchext, CPU, m)
{
	m.impl("scaled_add", &scaled_add_cpu);
	m.impl("bias_gelu", &bias_gelu_cpu);
}

TORCH_LIBRARY_IMPL(torchext, CUDA, m)
{
	m.impl("scaled_add", &scaled_add_cuda);
	m.impl("bias_gelu", &bias_gelu_cuda);
}

// Importing torchext._C runs the registrations above; the module itself is empty but says
// what it was built with.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.attr("built_with_torch") = TORCH_VERSION;
}
