// scale.cuh: the kernel's launcher, callable from C++ without CUDA headers.
#pragma once
#include <stdint.h>

extern "C" int halfops_scale_cuda(const void *x, float alpha, void *out, int64_t n, void *stream);
