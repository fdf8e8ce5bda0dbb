// scale.cpp: the op pygops::scale, dispatching to its CPU or CUDA implementation. Python.h comes
// first (PyG's op sources have it for the Windows PyInit_ stubs; on Linux nothing uses it).
#include <Python.h>
#include <torch/script.h>

#include "cpu/scale_cpu.h"

#ifdef WITH_CUDA
#include <cuda.h>

#include "cuda/scale_cuda.h"
#endif

#ifdef _WIN32
#ifdef WITH_PYTHON
#ifdef WITH_CUDA
PyMODINIT_FUNC PyInit__scale_cuda(void) { return NULL; }
#else
PyMODINIT_FUNC PyInit__scale_cpu(void) { return NULL; }
#endif
#endif
#endif

torch::Tensor scale(torch::Tensor x, double a)
{
	if (x.device().is_cuda()) {
#ifdef WITH_CUDA
		return scale_cuda(x, a);
#else
		TORCH_CHECK(false, "pygops: not compiled with CUDA support");
#endif
	}
	return scale_cpu(x, a);
}

int64_t cuda_version()
{
#ifdef WITH_CUDA
	return CUDA_VERSION;
#else
	return -1;
#endif
}

static auto registry = torch::RegisterOperators()
                           .op("pygops::scale", &scale)
                           .op("pygops::cuda_version", &cuda_version);
