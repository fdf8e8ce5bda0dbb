/* gelu.h: the tanh approximation of GELU, as torch.nn.functional.gelu(approximate="tanh"),
 * shared by the CUDA kernel and the CPU path. */
#ifndef TORCHEXT_GELU_H
#define TORCHEXT_GELU_H

#include <math.h>

#ifdef __CUDACC__
#define TORCHEXT_HD __host__ __device__
#else
#define TORCHEXT_HD
#endif

static inline TORCHEXT_HD float torchext_gelu_tanh(float v)
{
	const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
	return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

#endif
