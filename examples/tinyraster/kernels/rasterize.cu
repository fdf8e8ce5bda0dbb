/* rasterize.cu: the CUDA rasteriser: project vertices, split each face's bounding box into
 * fixed-size chunks of pixels (load-balanced over a prefix sum), z-test with a 64-bit atomicMin,
 * then resolve face ids and perspective-correct barycentrics per pixel. */
#include <cub/device/device_scan.cuh>

#include "tinyraster.h"
#include "cuda_util.h"
#include "raster_math.h"

static __global__ void k_project(const float *V, int n_verts, int width, int height, tr_svert *sv)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n_verts)
		sv[i] = tr_project(V + (size_t)i * 4, width, height);
}

/* Per face: its pixel box, and how many TR_CHUNK-pixel chunks cover it. */
static __global__ void k_face_setup(const tr_svert *sv, const int32_t *F, int n_faces, int width,
                                    int height, tr_bbox *boxes, unsigned long long *chunks)
{
	int f = blockIdx.x * blockDim.x + threadIdx.x;
	if (f >= n_faces)
		return;
	tr_bbox bb = tr_face_bbox(sv[F[3 * f]], sv[F[3 * f + 1]], sv[F[3 * f + 2]], width, height);
	boxes[f] = bb;
	long long area = 0;
	if (bb.x1 >= bb.x0 && bb.y1 >= bb.y0)
		area = (long long)(bb.x1 - bb.x0 + 1) * (bb.y1 - bb.y0 + 1);
	chunks[f] = (unsigned long long)((area + TR_CHUNK - 1) / TR_CHUNK);
}

/* One block per chunk: find the chunk's face in the inclusive prefix sum `ends`, then each
 * thread tests one pixel of that face's box. Work is proportional to the covered area, so one
 * screen-filling face and 100k small ones both keep every SM busy. */
static __global__ void __launch_bounds__(TR_CHUNK)
    k_raster(const tr_svert *sv, const int32_t *F, int n_faces, const tr_bbox *boxes,
             const unsigned long long *ends, unsigned long long total, const float *D,
             float occlusion_truncation, int width, unsigned long long *zbuf)
{
	for (unsigned long long c = blockIdx.x; c < total; c += gridDim.x) {
		/* First face whose end is past c (every thread searches: the loads broadcast). */
		int lo = 0, hi = n_faces - 1;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if (ends[mid] > c)
				hi = mid;
			else
				lo = mid + 1;
		}
		int f = lo;
		unsigned long long first = f ? ends[f - 1] : 0ull;
		tr_bbox bb = boxes[f];
		long long bw = bb.x1 - bb.x0 + 1, bh = bb.y1 - bb.y0 + 1;
		long long i = (long long)(c - first) * TR_CHUNK + threadIdx.x;
		if (i >= bw * bh)
			continue;
		int px = bb.x0 + (int)(i % bw), py = bb.y0 + (int)(i / bw);
		int p = py * width + px;
		uint64_t key = tr_fragment_key(sv[F[3 * f]], sv[F[3 * f + 1]], sv[F[3 * f + 2]], f,
		                               px, py, D ? D + p : nullptr, occlusion_truncation);
		if (key != TR_KEY_EMPTY)
			atomicMin(zbuf + p, (unsigned long long)key);
	}
}

static __global__ void k_resolve(const tr_svert *sv, const int32_t *F,
                                 const unsigned long long *zbuf, int width, int npix,
                                 int32_t *face_ids, float *bary)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= npix)
		return;
	unsigned long long key = zbuf[p];
	float *out = bary + 3 * (size_t)p;
	if (key == TR_KEY_EMPTY) {
		face_ids[p] = 0;
		out[0] = out[1] = out[2] = 0.0f;
		return;
	}
	int f = (int)(uint32_t)key - 1;
	face_ids[p] = f + 1;
	float b[3];
	tr_resolve_bary(sv[F[3 * f]], sv[F[3 * f + 1]], sv[F[3 * f + 2]], p % width, p / width, b);
	out[0] = b[0];
	out[1] = b[1];
	out[2] = b[2];
}

static unsigned int tr_blocks(long long n, int threads)
{
	return (unsigned int)((n + threads - 1) / threads);
}

extern "C" int tr_rasterize_cuda(const float *V, int n_verts, const int32_t *F, int n_faces,
                                 const float *D, int width, int height, float occlusion_truncation,
                                 int use_depth_prior, int32_t *face_ids, float *bary, char *err,
                                 size_t errlen)
{
	if (tr_check_mesh(n_verts, F, n_faces, width, height, err, errlen))
		return -1;
	if (use_depth_prior && !D) {
		tr_set_err(err, errlen, "use_depth_prior is set but no depth prior D was given");
		return -1;
	}
	if (tr_cuda_ready(err, errlen))
		return -1;
	int npix = width * height;
	tr_dev_buf<float> dV, dD;
	tr_dev_buf<int32_t> dF, dIds;
	tr_dev_buf<tr_svert> dSv;
	tr_dev_buf<tr_bbox> dBoxes;
	tr_dev_buf<unsigned long long> dChunks, dEnds, dZ;
	tr_dev_buf<float> dBary;
	tr_dev_buf<unsigned char> dTmp;
	TR_CUDA_TRY(dV.alloc((size_t)n_verts * 4), "cudaMalloc(V)");
	TR_CUDA_TRY(dF.alloc((size_t)n_faces * 3), "cudaMalloc(F)");
	TR_CUDA_TRY(dSv.alloc((size_t)n_verts), "cudaMalloc(screen vertices)");
	TR_CUDA_TRY(dBoxes.alloc((size_t)n_faces), "cudaMalloc(boxes)");
	TR_CUDA_TRY(dChunks.alloc((size_t)n_faces), "cudaMalloc(chunks)");
	TR_CUDA_TRY(dEnds.alloc((size_t)n_faces), "cudaMalloc(chunk ends)");
	TR_CUDA_TRY(dZ.alloc((size_t)npix), "cudaMalloc(z-buffer)");
	TR_CUDA_TRY(dIds.alloc((size_t)npix), "cudaMalloc(face ids)");
	TR_CUDA_TRY(dBary.alloc((size_t)npix * 3), "cudaMalloc(barycentrics)");
	if (use_depth_prior) {
		TR_CUDA_TRY(dD.alloc((size_t)npix), "cudaMalloc(D)");
		TR_CUDA_TRY(
		    cudaMemcpy(dD.p, D, (size_t)npix * sizeof(float), cudaMemcpyHostToDevice),
		    "copy D to the device");
	}
	TR_CUDA_TRY(
	    cudaMemcpy(dV.p, V, (size_t)n_verts * 4 * sizeof(float), cudaMemcpyHostToDevice),
	    "copy V to the device");
	TR_CUDA_TRY(
	    cudaMemcpy(dF.p, F, (size_t)n_faces * 3 * sizeof(int32_t), cudaMemcpyHostToDevice),
	    "copy F to the device");
	/* All ones is TR_KEY_EMPTY. */
	TR_CUDA_TRY(cudaMemset(dZ.p, 0xff, (size_t)npix * sizeof(unsigned long long)),
	            "clear the z-buffer");

	if (n_verts > 0) {
		k_project<<<tr_blocks(n_verts, 256), 256>>>(dV.p, n_verts, width, height, dSv.p);
		TR_CUDA_TRY(cudaGetLastError(), "launch k_project");
	}
	if (n_faces > 0) {
		k_face_setup<<<tr_blocks(n_faces, 256), 256>>>(dSv.p, dF.p, n_faces, width, height,
		                                               dBoxes.p, dChunks.p);
		TR_CUDA_TRY(cudaGetLastError(), "launch k_face_setup");
		size_t tmp_bytes = 0;
		TR_CUDA_TRY(
		    cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, dChunks.p, dEnds.p, n_faces),
		    "size the chunk scan");
		TR_CUDA_TRY(dTmp.alloc(tmp_bytes), "cudaMalloc(scan scratch)");
		TR_CUDA_TRY(
		    cub::DeviceScan::InclusiveSum(dTmp.p, tmp_bytes, dChunks.p, dEnds.p, n_faces),
		    "scan the chunk counts");
		unsigned long long total = 0;
		TR_CUDA_TRY(cudaMemcpy(&total, dEnds.p + (n_faces - 1), sizeof total,
		                       cudaMemcpyDeviceToHost),
		            "read the chunk total");
		if (total > 0) {
			unsigned int grid = total < (1ull << 22) ? (unsigned int)total : 1u << 22;
			k_raster<<<grid, TR_CHUNK>>>(dSv.p, dF.p, n_faces, dBoxes.p, dEnds.p, total,
			                             use_depth_prior ? dD.p : nullptr,
			                             occlusion_truncation, width, dZ.p);
			TR_CUDA_TRY(cudaGetLastError(), "launch k_raster");
		}
	}
	k_resolve<<<tr_blocks(npix, 256), 256>>>(dSv.p, dF.p, dZ.p, width, npix, dIds.p, dBary.p);
	TR_CUDA_TRY(cudaGetLastError(), "launch k_resolve");
	TR_CUDA_TRY(
	    cudaMemcpy(face_ids, dIds.p, (size_t)npix * sizeof(int32_t), cudaMemcpyDeviceToHost),
	    "rasterize (copying face ids back)");
	TR_CUDA_TRY(
	    cudaMemcpy(bary, dBary.p, (size_t)npix * 3 * sizeof(float), cudaMemcpyDeviceToHost),
	    "rasterize (copying barycentrics back)");
	return 0;
}
