/* device.cu: CUDA device discovery for tinyraster: count, properties, and the "is there a GPU"
 * check every CUDA entry point makes first. */
#include <stdio.h>
#include <string.h>

#include "tinyraster.h"
#include "cuda_util.h"

extern "C" int tr_cuda_device_count(char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		/* No driver or no device: report it and clear it, so later calls start clean. */
		tr_set_err(err, errlen, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
		cudaGetLastError();
		return 0;
	}
	if (n == 0)
		tr_set_err(err, errlen, "the CUDA driver reports 0 devices");
	return n;
}

extern "C" int tr_cuda_ready(char *err, size_t errlen)
{
	char why[256] = "";
	if (tr_cuda_device_count(why, sizeof why) > 0)
		return 0;
	tr_set_err(err, errlen, "no CUDA device is available: %s", why);
	return -1;
}

extern "C" int tr_cuda_device_info(int device, struct tr_device_info *out, char *err, size_t errlen)
{
	char why[256] = "";
	int n = tr_cuda_device_count(why, sizeof why);
	if (n == 0) {
		tr_set_err(err, errlen, "no CUDA device is available: %s", why);
		return -1;
	}
	if (device < 0 || device >= n) {
		tr_set_err(err, errlen, "no CUDA device %d: there are %d (0 to %d)", device, n,
		           n - 1);
		return -1;
	}
	cudaDeviceProp prop;
	TR_CUDA_TRY(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", prop.name);
	out->major = prop.major;
	out->minor = prop.minor;
	out->multiprocessors = prop.multiProcessorCount;
	out->total_memory = prop.totalGlobalMem;
	TR_CUDA_TRY(cudaDriverGetVersion(&out->driver_version), "cudaDriverGetVersion");
	TR_CUDA_TRY(cudaRuntimeGetVersion(&out->runtime_version), "cudaRuntimeGetVersion");
	return 0;
}
