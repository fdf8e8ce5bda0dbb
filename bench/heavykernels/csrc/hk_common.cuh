/* hk_common.cuh: dtype traits and warp/block reductions shared by the heavykernels sources. */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>

#include "hk.h"

template <typename T> struct hk_type;
template <> struct hk_type<float> {
	static constexpr const char *name = "float";
	__device__ __forceinline__ static float to(float v) { return v; }
	__device__ __forceinline__ static float from(float v) { return v; }
};
template <> struct hk_type<__half> {
	static constexpr const char *name = "half";
	__device__ __forceinline__ static float to(__half v) { return __half2float(v); }
	__device__ __forceinline__ static __half from(float v) { return __float2half_rn(v); }
};
template <> struct hk_type<__nv_bfloat16> {
	static constexpr const char *name = "bfloat16";
	__device__ __forceinline__ static float to(__nv_bfloat16 v) { return __bfloat162float(v); }
	__device__ __forceinline__ static __nv_bfloat16 from(float v) { return __float2bfloat16_rn(v); }
};

template <int EPI> __device__ __forceinline__ float hk_epilogue_apply(float v)
{
	if constexpr (EPI == HK_EPI_RELU)
		return v > 0.f ? v : 0.f;
	else if constexpr (EPI == HK_EPI_GELU)
		return 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
	else if constexpr (EPI == HK_EPI_SILU)
		return v / (1.f + __expf(-v));
	else
		return v;
}

__device__ __forceinline__ float hk_warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__device__ __forceinline__ float hk_warp_max(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

/* Sum over a block of up to 1024 threads; every thread gets the result. */
__device__ __forceinline__ float hk_block_sum(float v)
{
	__shared__ float part[32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	v = hk_warp_sum(v);
	__syncthreads();
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	int nw = (blockDim.x + 31) >> 5;
	v = lane < nw ? part[lane] : 0.f;
	return hk_warp_sum(v);
}

/* Max over a block of up to 1024 threads; every thread gets the result. */
__device__ __forceinline__ float hk_block_max(float v)
{
	__shared__ float part[32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	v = hk_warp_max(v);
	__syncthreads();
	if (lane == 0)
		part[warp] = v;
	__syncthreads();
	int nw = (blockDim.x + 31) >> 5;
	v = lane < nw ? part[lane] : -INFINITY;
	return hk_warp_max(v);
}

/* Dispatch a runtime dtype to a C++ type: the body sees `scalar_t`. */
#define HK_DISPATCH_DTYPE(dtype, ...)                                                          \
	switch (dtype) {                                                                       \
	case HK_F32: {                                                                         \
		using scalar_t = float;                                                        \
		__VA_ARGS__;                                                                   \
	} break;                                                                               \
	case HK_F16: {                                                                         \
		using scalar_t = __half;                                                       \
		__VA_ARGS__;                                                                   \
	} break;                                                                               \
	case HK_BF16: {                                                                        \
		using scalar_t = __nv_bfloat16;                                                \
		__VA_ARGS__;                                                                   \
	} break;                                                                               \
	default:                                                                               \
		return 1;                                                                      \
	}

#define HK_STREAM(s) ((cudaStream_t)(s))
