/* torchext_kernels.h: the kernels' C interface. No torch and no CUDA header: the binding
 * (built per Python and torch) calls these; the kernels are built once per CUDA toolkit. */
#ifndef TORCHEXT_KERNELS_H
#define TORCHEXT_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = x[i] + alpha * y[i] on the GPU, on the given cudaStream_t; device pointers.
 * Returns 0 or a cudaError_t. */
int torchext_scaled_add_cuda(const float *x, const float *y, float alpha, float *out, int64_t n,
                             void *stream);
/* out[r, c] = gelu_tanh(x[r, c] + bias[c]) for a row-major rows x cols matrix, on the GPU. */
int torchext_bias_gelu_cuda(const float *x, const float *bias, float *out, int64_t rows,
                            int64_t cols, void *stream);
/* out[i] = x[i] * x[i] on the GPU (csrc/square.cu). */
int torchext_square_cuda(const float *x, float *out, int64_t n, void *stream);
/* Returns the message of a cudaError_t. */
const char *torchext_cuda_error(int err);

/* The same on the host (the CPU path). */
void torchext_scaled_add_cpu(const float *x, const float *y, float alpha, float *out, int64_t n);
void torchext_bias_gelu_cpu(const float *x, const float *bias, float *out, int64_t rows,
                            int64_t cols);

#ifdef __cplusplus
}
#endif
#endif
