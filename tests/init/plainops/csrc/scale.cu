// scale.cu: the _cuda extension's kernel (needs its WITH_CUDA define).
#include <cuda_runtime.h>

#include "plainops.h"

#ifndef WITH_CUDA
#error "scale.cu is compiled with the _cuda extension's define_macros"
#endif

__global__ void scale_kernel(float *x, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= s;
}

extern "C" const char *plainops_scale_variant(void)
{
	return "scale.cu with WITH_CUDA";
}

extern "C" int plainops_devices(int *count)
{
	*count = 0;
	return (int)cudaGetDeviceCount(count);
}
