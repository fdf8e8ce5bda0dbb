// saxpy_kernel.h: the CUDA half of torchstable, callable from C++ without CUDA's headers.
#pragma once
#include <cstdint>

// out[i] = a * x[i] + y[i] for i < n, on `stream` (a cudaStream_t). Returns a cudaError_t
// (0: launched).
extern "C" int torchstable_saxpy_cuda(float a, const float *x, const float *y, float *out,
                                      int64_t n, void *stream);
