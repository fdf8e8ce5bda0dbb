/* plainops.h: what the kernel sources give the modules (C linkage, no Python). */
#ifndef PLAINOPS_H
#define PLAINOPS_H
#ifdef __cplusplus
extern "C" {
#endif
/* "cuda" when compiled with WITH_CUDA, else "cpu": which build of variant.cpp this is. */
const char *plainops_variant(void);
/* The define scale.cu was compiled with, and the CUDA runtime's answer to how many devices
 * there are (*count; the error code is returned: 0, or 100/35 without a GPU or driver). */
const char *plainops_scale_variant(void);
int plainops_devices(int *count);
#ifdef __cplusplus
}
#endif
#endif
