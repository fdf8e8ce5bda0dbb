/* hk.h: the host API of the heavykernels benchmark set: C launchers, one per op, that dispatch
 * a runtime (dtype, tile/width, variant) to one of the compiled template instantiations. */
#ifndef HK_H
#define HK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, as torch names them. */
enum hk_dtype { HK_F32 = 0, HK_F16 = 1, HK_BF16 = 2 };

/* Epilogues fused into the GEMM and elementwise ops. */
enum hk_epilogue { HK_EPI_NONE = 0, HK_EPI_RELU = 1, HK_EPI_GELU = 2, HK_EPI_SILU = 3 };

/* Every launcher returns a cudaError_t as int (0: success; 1 for an unsupported variant). All
 * pointers are device pointers; stream is a cudaStream_t (NULL: the default stream). */

/* C[m,n] = epi(alpha * A[m,k] @ B[k,n] + bias[n]); tile is 16, 32 or 64. */
int hk_gemm(int dtype, int tile, int epilogue, const void *a, const void *b, const void *bias,
            void *c, int m, int n, int k, float alpha, void *stream);
/* Row softmax (or log-softmax) over `cols` of `rows` rows. */
int hk_softmax(int dtype, int log, const void *x, void *y, int rows, int cols, void *stream);
/* LayerNorm forward with weight and bias; mean/rstd saved for the backward. */
int hk_layernorm_fwd(int dtype, const void *x, const void *w, const void *b, void *y, float *mean,
                     float *rstd, int rows, int cols, float eps, void *stream);
/* LayerNorm backward: dx, dw, db (dw and db accumulated in float). */
int hk_layernorm_bwd(int dtype, const void *dy, const void *x, const void *w, const float *mean,
                     const float *rstd, void *dx, float *dw, float *db, int rows, int cols,
                     void *stream);
/* Gaussian splatting, forward: alpha-composite n sorted 2D gaussians into a w*h image of
 * `channels` channels (1, 2, 3, 4, 8, 16, 32), 16x16 tiles (gsplat's rasterize_to_pixels). */
int hk_rasterize_fwd(int dtype, int channels, const float *means2d, const float *conics,
                     const void *colors, const float *opacities, const int *tile_offsets,
                     const int *flatten_ids, int n_isects, int width, int height, void *render,
                     float *alphas, int *last_ids, void *stream);
/* Gaussian splatting, backward of hk_rasterize_fwd. */
int hk_rasterize_bwd(int dtype, int channels, const float *means2d, const float *conics,
                     const void *colors, const float *opacities, const int *tile_offsets,
                     const int *flatten_ids, int n_isects, int width, int height,
                     const float *alphas, const int *last_ids, const void *v_render,
                     float *v_means2d, float *v_conics, float *v_colors, float *v_opacities,
                     void *stream);
/* Project n 3D gaussians (means, quats, scales) to 2D through a pinhole camera. */
int hk_project_fwd(int dtype, int n, const void *means, const void *quats, const void *scales,
                   const float *viewmat, const float *K, int width, int height, float *means2d,
                   float *conics, float *depths, int *radii, void *stream);
/* Fused elementwise y = epi(x * scale + bias) with a residual, vectorised by `vec` (1, 2, 4, 8). */
int hk_elementwise(int dtype, int vec, int epilogue, const void *x, const void *residual,
                   const void *bias, void *y, long long n, int cols, float scale, void *stream);

/* The template instantiations compiled into this library, one name a line ("gemm<half,32,gelu>"):
 * a NUL-terminated static string. */
const char *hk_variants(void);

#ifdef __cplusplus
}
#endif
#endif
