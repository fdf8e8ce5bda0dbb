// ops.cpp: the op; includes halfops.h, so torch/extension.h: compiled per Python.
#include "halfops.h"

#include <ATen/cuda/CUDAContext.h>

at::Tensor halfops_scale(const at::Tensor &x, double alpha)
{
	TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kHalf, "halfops: x must be a CUDA half tensor");
	at::Tensor xc = x.contiguous();
	at::Tensor out = at::empty_like(xc);
	int rc = halfops_scale_cuda(xc.data_ptr(), (float)alpha, out.data_ptr(), xc.numel(),
	                            at::cuda::getCurrentCUDAStream().stream());
	TORCH_CHECK(rc == 0, "halfops: the kernel failed (CUDA error ", rc, ")");
	return out;
}
