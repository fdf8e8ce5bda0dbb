// shift.cpp: the op pygops::shift, dispatching to its CPU or CUDA implementation. Python.h comes
// first (PyG's op sources have it for the Windows PyInit_ stubs; on Linux nothing uses it).
#include <Python.h>
#include <torch/script.h>

#include "cpu/shift_cpu.h"

#ifdef WITH_CUDA
#include <cuda.h>

#include "cuda/shift_cuda.h"
#endif

#ifdef _WIN32
#ifdef WITH_PYTHON
#ifdef WITH_CUDA
PyMODINIT_FUNC PyInit__shift_cuda(void) { return NULL; }
#else
PyMODINIT_FUNC PyInit__shift_cpu(void) { return NULL; }
#endif
#endif
#endif

torch::Tensor shift(torch::Tensor x, double a)
{
	if (x.device().is_cuda()) {
#ifdef WITH_CUDA
		return shift_cuda(x, a);
#else
		TORCH_CHECK(false, "pygops: not compiled with CUDA support");
#endif
	}
	return shift_cpu(x, a);
}

static auto registry = torch::RegisterOperators().op("pygops::shift", &shift);
