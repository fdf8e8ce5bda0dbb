// ops.cpp: torchstable::saxpy, registered with torch's stable ABI. Only torch/csrc/stable and
// torch/headeronly are used, so the module references torch's stable C shim and nothing of its
// C++ API (cuwheel's audit checks that), and one build serves every later torch.
#include <cmath>
#include <cstdint>

// The stable C shim declares its CUDA entry points (aoti_torch_get_current_cuda_stream) only
// under USE_CUDA, as torch's own CUDA build defines it.
#define USE_CUDA 1

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

#include "saxpy_kernel.h"

using torch::stable::Tensor;

static void check_args(const Tensor &x, const Tensor &y)
{
	STD_TORCH_CHECK(x.scalar_type() == torch::headeronly::ScalarType::Float &&
	                    y.scalar_type() == torch::headeronly::ScalarType::Float,
	                "saxpy: x and y must be float32");
	STD_TORCH_CHECK(x.is_contiguous() && y.is_contiguous(), "saxpy: x and y must be contiguous");
	STD_TORCH_CHECK(x.numel() == y.numel(), "saxpy: x and y must have as many elements");
}

// The CPU path: the same fused multiply-add the kernel does (fmaf), so both agree bit for bit.
static Tensor saxpy_cpu(double a, Tensor x, Tensor y)
{
	check_args(x, y);
	Tensor out = torch::stable::empty_like(x);
	const float *xp = static_cast<const float *>(x.data_ptr());
	const float *yp = static_cast<const float *>(y.data_ptr());
	float *op = static_cast<float *>(out.data_ptr());
	const float fa = static_cast<float>(a);
	for (int64_t i = 0, n = x.numel(); i < n; i++)
		op[i] = std::fmaf(fa, xp[i], yp[i]);
	return out;
}

static Tensor saxpy_cuda(double a, Tensor x, Tensor y)
{
	check_args(x, y);
	STD_TORCH_CHECK(x.is_cuda() && y.is_cuda() && x.get_device() == y.get_device(),
	                "saxpy: x and y must be on one CUDA device");
	torch::stable::accelerator::DeviceGuard guard(x.get_device_index());
	Tensor out = torch::stable::empty_like(x);
	void *stream = nullptr;
	TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(x.get_device_index(), &stream));
	int err = torchstable_saxpy_cuda(static_cast<float>(a),
	                                 static_cast<const float *>(x.data_ptr()),
	                                 static_cast<const float *>(y.data_ptr()),
	                                 static_cast<float *>(out.data_ptr()), x.numel(), stream);
	STD_TORCH_CHECK(err == 0, "saxpy: the CUDA kernel did not launch (cudaError ", err, ")");
	return out;
}

STABLE_TORCH_LIBRARY(torchstable, m)
{
	m.def("saxpy(float a, Tensor x, Tensor y) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(torchstable, CPU, m)
{
	m.impl("saxpy", TORCH_BOX(&saxpy_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(torchstable, CUDA, m)
{
	m.impl("saxpy", TORCH_BOX(&saxpy_cuda));
}
