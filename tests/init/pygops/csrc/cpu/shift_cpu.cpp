// shift_cpu.cpp: the CPU implementation (torch only).
#include "shift_cpu.h"

torch::Tensor shift_cpu(torch::Tensor x, double a)
{
	TORCH_CHECK(x.device().is_cpu(), "pygops: shift_cpu takes a CPU tensor");
	auto xc = x.contiguous().to(torch::kFloat);
	auto out = torch::empty_like(xc);
	const float *xp = xc.data_ptr<float>();
	float *op = out.data_ptr<float>();
	for (int64_t i = 0; i < xc.numel(); i++)
		op[i] = (float)(xp[i] + a);
	return out;
}
