# twoext: two extension modules in one wheel (as PyG's torch-scatter builds six): twoext._add
# and twoext._mul, each a CUDA kernel and a binding. No pyproject.toml: the metadata is
# setup()'s, with a console script.
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

nvcc = ["-O3", "--use_fast_math"]


def ext(name):
    return CUDAExtension(
        "twoext._" + name,
        [os.path.join("csrc", name + ".cu"), os.path.join("csrc", name + "_bind.cpp")],
        include_dirs=["csrc"],
        define_macros=[("WITH_CUDA", None), ("TWOEXT_MINOR", "3")],
        extra_compile_args={"cxx": ["-O3"], "nvcc": nvcc},
    )


setup(
    name="twoext",
    version="0.3.0",
    description="Two torch extension modules in one wheel (a cuwheel init fixture)",
    python_requires=">=3.10",
    install_requires=["torch"],
    packages=["twoext"],
    ext_modules=[ext("add"), ext("mul")],
    entry_points={"console_scripts": ["twoext-info = twoext:info"]},
    cmdclass={"build_ext": BuildExtension.with_options(no_python_abi_suffix=True)},
)
