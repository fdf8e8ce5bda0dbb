# halfops: a torch extension as many research projects write it: one project header
# (csrc/halfops.h) pulls torch/extension.h into every C++ source, the nvcc flags undo torch's
# half-precision guards (-U__CUDA_NO_*), and the module is top-level (_halfops_c, beside the
# pure-Python package halfops). The metadata lives in pyproject.toml's static [project].
from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

nvcc_flags = [
    "-O3",
    "-std=c++17",
    "-U__CUDA_NO_HALF_OPERATORS__",
    "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__",
    "-U__CUDA_NO_BFLOAT16_OPERATORS__",
    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-U__CUDA_NO_BFLOAT162_OPERATORS__",
    "--expt-relaxed-constexpr",
]

setup(
    packages=find_packages(),
    ext_modules=[
        CUDAExtension(
            "_halfops_c",
            ["csrc/scale.cu", "csrc/ops.cpp", "csrc/bind.cpp"],
            include_dirs=["csrc"],
            extra_compile_args={"cxx": ["-O2"], "nvcc": nvcc_flags},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
