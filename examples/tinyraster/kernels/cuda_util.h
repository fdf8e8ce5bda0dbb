/* cuda_util.h: small C++ helpers for the .cu entry points: error checks that turn a CUDA error
 * into the API's -1 + message, and a device buffer that frees itself on every return path. */
#ifndef TR_CUDA_UTIL_H
#define TR_CUDA_UTIL_H

#include <cuda_runtime.h>

#include "tr_internal.h"

/* Evaluate a CUDA call; on failure write "what: error string (name)" and return -1. */
#define TR_CUDA_TRY(call, what)                                                                    \
	do {                                                                                       \
		cudaError_t tr_e_ = (call);                                                        \
		if (tr_e_ != cudaSuccess) {                                                        \
			tr_set_err(err, errlen, "%s: %s (%s)", (what), cudaGetErrorString(tr_e_),  \
			           cudaGetErrorName(tr_e_));                                       \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/* Owns one cudaMalloc allocation. */
template <typename T> struct tr_dev_buf {
	T *p = nullptr;
	tr_dev_buf() = default;
	tr_dev_buf(const tr_dev_buf &) = delete;
	tr_dev_buf &operator=(const tr_dev_buf &) = delete;
	~tr_dev_buf()
	{
		if (p)
			cudaFree(p);
	}
	cudaError_t alloc(size_t count)
	{
		/* cudaMalloc(0) may return NULL: keep one element so kernels get a valid pointer.
		 */
		return cudaMalloc((void **)&p, (count ? count : 1) * sizeof(T));
	}
};

#endif
