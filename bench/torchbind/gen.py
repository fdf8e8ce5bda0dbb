"""gen.py: writes the torch-binding benchmark projects of bench/torchbind/run.

shape 1 (nvdiffrast-like): binding/b<i>.cpp each include torch/extension.h and
  pybind11/numpy.h through binding/common.h and define op_<i> (ATen work, AT_DISPATCH; no
  Python use); binding/bind.cpp holds PYBIND11_MODULE. csrc/k0.cu includes
  torch/extension.h, csrc/k<j>.cu (j > 0) include it behind #ifndef __CUDACC__ (host-only
  helpers); each defines a float kernel and its launcher.
shape 2 (gsplat-like): binding/aten_<i>.cpp include only ATen/ATen.h and define op_<i>;
  binding/bind.cpp includes torch/extension.h and registers them all; csrc/k<j>.cu are
  torch-free.
Each project has a pyproject.toml for cuwheel (kind torch, ccache off) and a setup.py for the
old way (CUDAExtension + BuildExtension, nvcc -O3; the host compiler gets BuildExtension's
default, CPython's CFLAGS with -O3). Every op runs on CPU tensors (ATen) and calls its CUDA
kernel for CUDA tensors.
"""
import os


def _w(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


KERNEL = """{guard}#include <cuda_runtime.h>
#include <stdint.h>

__global__ void k{j}_kernel(const float *__restrict__ x, const float *__restrict__ y,
                           float *__restrict__ out, int64_t n, float a)
{{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		out[i] = a * x[i] + sinf(y[i]) + {j}.0f;
}}

extern "C" int launch_k{j}(const float *x, const float *y, float *out, int64_t n, float a)
{{
	if (n == 0)
		return 0;
	int64_t g = (n + 255) / 256;
	k{j}_kernel<<<(unsigned)(g < 65535 ? g : 65535), 256>>>(x, y, out, n, a);
	return (int)cudaGetLastError();
}}
"""

GUARD = """// Host-only helpers of this file need torch; nvcc (which defines __CUDACC__ in every pass
// over a .cu) never sees the include.
#ifndef __CUDACC__
#include <torch/extension.h>
#endif
"""

TORCH_CU = """// This kernel source includes torch/extension.h as nvcc sees it (the third project of
// issue 27): Python's headers reach it, but it uses only ATen's.
#include <torch/extension.h>
"""

OP = """
at::Tensor op_{i}(const at::Tensor &x, const at::Tensor &y)
{{
	TORCH_CHECK(x.sizes() == y.sizes(), "op_{i}: x and y differ in shape");
	at::Tensor xc = x.contiguous(), yc = y.contiguous();
	at::Tensor out = at::empty_like(xc);
	if (xc.is_cuda()) {{
		TORCH_CHECK(xc.scalar_type() == at::kFloat, "op_{i}: CUDA wants float32");
		int err = launch_k{j}(xc.data_ptr<float>(), yc.data_ptr<float>(),
		                      out.data_ptr<float>(), xc.numel(), {a}f);
		TORCH_CHECK(err == 0, "op_{i}: CUDA error ", err);
		return out;
	}}
	AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "op_{i}", [&] {{
		const scalar_t *px = xc.data_ptr<scalar_t>();
		const scalar_t *py = yc.data_ptr<scalar_t>();
		scalar_t *po = out.data_ptr<scalar_t>();
		for (int64_t k = 0, n = xc.numel(); k < n; k++)
			po[k] = (scalar_t){a} * px[k] + std::sin(py[k]) + (scalar_t){j};
	}});
	return out + at::relu(yc) * 0.5 - at::tanh(xc).mul(0.25);
}}
"""


def generate(d, shape, n_cpp=8, n_cu=4, n_aten=6, archs="9.0", pythons=None):
    """Writes the project into d; returns what it holds."""
    mod = "tbshape%d" % shape
    _w(os.path.join(d, "python", mod, "__init__.py"),
       "import torch  # loads libtorch and the CUDA runtime first\n\nfrom ._C import *  # noqa\n")
    decls = "".join('extern "C" int launch_k%d(const float *x, const float *y, float *out, '
                    "int64_t n, float a);\n" % j for j in range(n_cu))
    _w(os.path.join(d, "csrc", "kern.h"),
       "#pragma once\n#include <stdint.h>\n" + decls)
    for j in range(n_cu):
        guard = ""
        if shape == 1:
            guard = TORCH_CU if j == 0 else GUARD
        _w(os.path.join(d, "csrc", "k%d.cu" % j), KERNEL.format(j=j, guard=guard))
    n_ops = n_cpp if shape == 1 else n_aten
    if shape == 1:
        # The project's framework header (nvdiffrast's torch_common.inl): torch/extension.h and
        # pybind11/numpy.h reach every source; only bind.cpp uses them (PYBIND11_MODULE).
        _w(os.path.join(d, "binding", "common.h"),
           "// common.h: the project's framework header, included by every binding file.\n"
           "#pragma once\n#include <torch/extension.h>\n#include <pybind11/numpy.h>\n\n"
           "#include \"kern.h\"\n\n" +
           "".join("at::Tensor op_%d(const at::Tensor &x, const at::Tensor &y);\n" % i
                   for i in range(n_cpp)))
        for i in range(n_cpp):
            body = '#include "common.h"\n\n#include <cmath>\n' + OP.format(
                i=i, j=i % n_cu, a=i + 1.5)
            _w(os.path.join(d, "binding", "b%d.cpp" % i), body)
        _w(os.path.join(d, "binding", "bind.cpp"),
           '#include "common.h"\n\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n' +
           "".join('\tm.def("op_%d", &op_%d, "op %d");\n' % (k, k, k) for k in range(n_cpp)) +
           "}\n")
        ext_sources = "binding/*.cpp"
    else:
        for i in range(n_aten):
            _w(os.path.join(d, "binding", "aten_%d.cpp" % i),
               "// aten_%d.cpp: ATen only, no Python: compiled once per (toolkit, torch).\n"
               "#include <ATen/ATen.h>\n#include <ATen/Dispatch.h>\n\n#include <cmath>\n\n"
               "#include \"kern.h\"\n" % i + OP.format(i=i, j=i % n_cu, a=i + 1.5))
        _w(os.path.join(d, "binding", "bind.cpp"),
           "// bind.cpp: the only file with torch/extension.h (and so Python).\n"
           "#include <torch/extension.h>\n\n" +
           "".join("at::Tensor op_%d(const at::Tensor &x, const at::Tensor &y);\n" % i
                   for i in range(n_aten)) +
           "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n" +
           "".join("\tm.def(\"op_%d\", &op_%d, \"op %d\");\n" % (i, i, i)
                   for i in range(n_aten)) + "}\n")
        ext_sources = "binding/*.cpp"
    pys = "".join('"%s" = "%s"\n' % (v, p) for v, p in (pythons or {}).items())
    _w(os.path.join(d, "pyproject.toml"), f"""[project]
name = "{mod}"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["python/{mod}"]

[tool.cuwheel.kernels]
sources = ["csrc/*.cu"]
include-dirs = ["csrc"]
archs = "{archs}"

[tool.cuwheel.extension]
module = "{mod}._C"
kind = "torch"
sources = ["{ext_sources}"]
include-dirs = ["csrc", "binding"]

[tool.cuwheel.matrix]
python = {list((pythons or {}).keys())!r}
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.cache]
ccache = "off"

[tool.cuwheel.pythons]
{pys}""".replace("'", '"'))
    _w(os.path.join(d, "setup.py"), f'''"""The old way: setuptools + CUDAExtension + BuildExtension (ninja, MAX_JOBS)."""
import glob
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

here = os.path.dirname(os.path.abspath(__file__))
setup(
    packages=["{mod}"],
    package_dir={{"": "python"}},
    ext_modules=[
        CUDAExtension(
            "{mod}._C",
            sources=sorted(glob.glob("csrc/*.cu")) + sorted(glob.glob("binding/*.cpp")),
            include_dirs=[os.path.join(here, "csrc"), os.path.join(here, "binding")],
            extra_compile_args={{"cxx": [], "nvcc": ["-O3"]}},
        )
    ],
    cmdclass={{"build_ext": BuildExtension}},
)
''')
    return {"module": mod, "n_cpp": n_cpp if shape == 1 else 0, "n_aten": n_aten if shape == 2
            else 0, "n_cu": n_cu, "n_ops": n_ops}
