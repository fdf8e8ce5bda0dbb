/* project.cu: EWA projection of 3D gaussians (mean, quaternion, scale) to 2D conics through a
 * pinhole camera, modelled on gsplat's fully_fused_projection; instantiated over the input dtype
 * (the antialiased variant, AA, is written but not dispatched). */
#include "hk_common.cuh"

namespace {

template <typename T, bool AA>
__global__ void project_fwd(int n, const T *__restrict__ means, const T *__restrict__ quats,
			    const T *__restrict__ scales, const float *__restrict__ viewmat,
			    const float *__restrict__ K, int width, int height, float2 *means2d,
			    float3 *conics, float *depths, int *radii)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p[3], q[4], s[3];
#pragma unroll
	for (int j = 0; j < 3; j++) {
		p[j] = hk_type<T>::to(means[3 * i + j]);
		s[j] = hk_type<T>::to(scales[3 * i + j]);
	}
#pragma unroll
	for (int j = 0; j < 4; j++)
		q[j] = hk_type<T>::to(quats[4 * i + j]);
	/* World to camera. */
	float c[3];
#pragma unroll
	for (int r = 0; r < 3; r++)
		c[r] = viewmat[4 * r] * p[0] + viewmat[4 * r + 1] * p[1] + viewmat[4 * r + 2] * p[2] +
		       viewmat[4 * r + 3];
	if (c[2] < 0.01f) {
		radii[i] = 0;
		return;
	}
	/* Rotation from the normalised quaternion; covariance R S S^T R^T. */
	float qn = rsqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	float w = q[0] * qn, x = q[1] * qn, y = q[2] * qn, z = q[3] * qn;
	float R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
			 {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
			 {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
	float M[3][3], S[3][3];
#pragma unroll
	for (int r = 0; r < 3; r++)
#pragma unroll
		for (int k = 0; k < 3; k++)
			M[r][k] = R[r][k] * s[k];
#pragma unroll
	for (int r = 0; r < 3; r++)
#pragma unroll
		for (int k = 0; k < 3; k++)
			S[r][k] = M[r][0] * M[k][0] + M[r][1] * M[k][1] + M[r][2] * M[k][2];
	/* Camera rotation, then the Jacobian of the perspective projection. */
	float W[3][3], V[3][3];
#pragma unroll
	for (int r = 0; r < 3; r++)
#pragma unroll
		for (int k = 0; k < 3; k++)
			W[r][k] = viewmat[4 * r + k];
#pragma unroll
	for (int r = 0; r < 3; r++)
#pragma unroll
		for (int k = 0; k < 3; k++) {
			float acc = 0.f;
#pragma unroll
			for (int a = 0; a < 3; a++)
#pragma unroll
				for (int b = 0; b < 3; b++)
					acc += W[r][a] * S[a][b] * W[k][b];
			V[r][k] = acc;
		}
	float fx = K[0], fy = K[4], cx = K[2], cy = K[5];
	float iz = 1.f / c[2];
	float J[2][3] = {{fx * iz, 0.f, -fx * c[0] * iz * iz}, {0.f, fy * iz, -fy * c[1] * iz * iz}};
	float cov[2][2];
#pragma unroll
	for (int r = 0; r < 2; r++)
#pragma unroll
		for (int k = 0; k < 2; k++) {
			float acc = 0.f;
#pragma unroll
			for (int a = 0; a < 3; a++)
#pragma unroll
				for (int b = 0; b < 3; b++)
					acc += J[r][a] * V[a][b] * J[k][b];
			cov[r][k] = acc;
		}
	float det0 = cov[0][0] * cov[1][1] - cov[0][1] * cov[0][1];
	cov[0][0] += 0.3f;
	cov[1][1] += 0.3f;
	float det = cov[0][0] * cov[1][1] - cov[0][1] * cov[0][1];
	if (det <= 0.f) {
		radii[i] = 0;
		return;
	}
	float comp = AA ? sqrtf(fmaxf(det0 / det, 0.f)) : 1.f;
	float b = 0.5f * (cov[0][0] + cov[1][1]);
	float lambda = b + sqrtf(fmaxf(0.1f, b * b - det));
	int radius = (int)ceilf(3.f * sqrtf(lambda));
	float u = fx * c[0] * iz + cx, v = fy * c[1] * iz + cy;
	if (u + radius <= 0 || u - radius >= width || v + radius <= 0 || v - radius >= height) {
		radii[i] = 0;
		return;
	}
	radii[i] = radius;
	depths[i] = c[2];
	means2d[i] = make_float2(u, v);
	conics[i] = make_float3(cov[1][1] / det * comp, -cov[0][1] / det * comp, cov[0][0] / det * comp);
}

} // namespace

extern "C" int hk_project_fwd(int dtype, int n, const void *means, const void *quats,
			      const void *scales, const float *viewmat, const float *K, int width,
			      int height, float *means2d, float *conics, float *depths, int *radii,
			      void *stream)
{
	HK_DISPATCH_DTYPE(dtype, {
		project_fwd<scalar_t, false><<<(n + 255) / 256, 256, 0, HK_STREAM(stream)>>>(
		    n, (const scalar_t *)means, (const scalar_t *)quats, (const scalar_t *)scales,
		    viewmat, K, width, height, (float2 *)means2d, (float3 *)conics, depths, radii);
		return (int)cudaGetLastError();
	});
}
