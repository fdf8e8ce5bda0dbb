// ops.cpp: the CPU path of the kernels. Shares its basename with ops.cu on purpose: the two
// objects must not collide in the archive's build directory.
#include "gelu.h"
#include "torchext_kernels.h"

extern "C" void torchext_scaled_add_cpu(const float *x, const float *y, float alpha, float *out,
					int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = x[i] + alpha * y[i];
}

extern "C" void torchext_bias_gelu_cpu(const float *x, const float *bias, float *out,
				       int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			out[r * cols + c] = torchext_gelu_tanh(x[r * cols + c] + bias[c]);
}
