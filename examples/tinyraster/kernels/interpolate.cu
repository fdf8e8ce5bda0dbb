/* interpolate.cu: attribute interpolation on the GPU, templated over float and __half storage;
 * the arithmetic is float in both cases, in raster_math.h's fixed order, like the reference. */
#include <cuda_fp16.h>

#include "tinyraster.h"
#include "cuda_util.h"
#include "raster_math.h"

static __device__ __forceinline__ float tr_load(const float *p, size_t i)
{
	return p[i];
}

static __device__ __forceinline__ float tr_load(const __half *p, size_t i)
{
	return __half2float(p[i]);
}

static __device__ __forceinline__ void tr_store(float *p, size_t i, float v)
{
	p[i] = v;
}

static __device__ __forceinline__ void tr_store(__half *p, size_t i, float v)
{
	p[i] = __float2half_rn(v);
}

/* One thread per (pixel, channel). */
template <typename T>
static __global__ void k_interpolate(const T *attr, int n_chan, const int32_t *F,
                                     const int32_t *face_ids, const float *bary, long long n,
                                     T *out)
{
	for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < n;
	     o += (long long)gridDim.x * blockDim.x) {
		long long p = o / n_chan;
		int ch = (int)(o % n_chan);
		int f = face_ids[p] - 1;
		float v = 0.0f;
		if (f >= 0) {
			const float *b = bary + 3 * p;
			v = tr_blend(b, tr_load(attr, (size_t)F[3 * f] * n_chan + ch),
			             tr_load(attr, (size_t)F[3 * f + 1] * n_chan + ch),
			             tr_load(attr, (size_t)F[3 * f + 2] * n_chan + ch));
		}
		tr_store(out, (size_t)o, v);
	}
}

template <typename T>
static int tr_interpolate_typed(const void *attr, int n_verts, int n_chan, const int32_t *F,
                                int n_faces, const int32_t *face_ids, const float *bary, int width,
                                int height, void *out, char *err, size_t errlen)
{
	size_t npix = (size_t)width * height;
	size_t n_out = npix * n_chan;
	tr_dev_buf<T> dAttr, dOut;
	tr_dev_buf<int32_t> dF, dIds;
	tr_dev_buf<float> dBary;
	TR_CUDA_TRY(dAttr.alloc((size_t)n_verts * n_chan), "cudaMalloc(attr)");
	TR_CUDA_TRY(dOut.alloc(n_out), "cudaMalloc(out)");
	TR_CUDA_TRY(dF.alloc((size_t)n_faces * 3), "cudaMalloc(F)");
	TR_CUDA_TRY(dIds.alloc(npix), "cudaMalloc(face ids)");
	TR_CUDA_TRY(dBary.alloc(npix * 3), "cudaMalloc(barycentrics)");
	TR_CUDA_TRY(
	    cudaMemcpy(dAttr.p, attr, (size_t)n_verts * n_chan * sizeof(T), cudaMemcpyHostToDevice),
	    "copy attr to the device");
	TR_CUDA_TRY(
	    cudaMemcpy(dF.p, F, (size_t)n_faces * 3 * sizeof(int32_t), cudaMemcpyHostToDevice),
	    "copy F to the device");
	TR_CUDA_TRY(cudaMemcpy(dIds.p, face_ids, npix * sizeof(int32_t), cudaMemcpyHostToDevice),
	            "copy face ids to the device");
	TR_CUDA_TRY(cudaMemcpy(dBary.p, bary, npix * 3 * sizeof(float), cudaMemcpyHostToDevice),
	            "copy barycentrics to the device");
	long long blocks = ((long long)n_out + 255) / 256;
	unsigned int grid = blocks < (1ll << 22) ? (unsigned int)blocks : 1u << 22;
	k_interpolate<T>
	    <<<grid, 256>>>(dAttr.p, n_chan, dF.p, dIds.p, dBary.p, (long long)n_out, dOut.p);
	TR_CUDA_TRY(cudaGetLastError(), "launch k_interpolate");
	TR_CUDA_TRY(cudaMemcpy(out, dOut.p, n_out * sizeof(T), cudaMemcpyDeviceToHost),
	            "interpolate (copying the result back)");
	return 0;
}

extern "C" int tr_interpolate_cuda(const void *attr, enum tr_dtype dtype, int n_verts, int n_chan,
                                   const int32_t *F, int n_faces, const int32_t *face_ids,
                                   const float *bary, int width, int height, void *out, char *err,
                                   size_t errlen)
{
	if (tr_check_interp(dtype, n_verts, n_chan, F, n_faces, face_ids, width, height, err,
	                    errlen))
		return -1;
	if (tr_cuda_ready(err, errlen))
		return -1;
	if (dtype == TR_DTYPE_F16)
		return tr_interpolate_typed<__half>(attr, n_verts, n_chan, F, n_faces, face_ids,
		                                    bary, width, height, out, err, errlen);
	return tr_interpolate_typed<float>(attr, n_verts, n_chan, F, n_faces, face_ids, bary, width,
	                                   height, out, err, errlen);
}
