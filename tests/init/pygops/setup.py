# pygops: shaped like the PyG family (torch_scatter, torch_sparse, torch_cluster): per op one
# _<op>_cpu and one _<op>_cuda extension; the op's csrc/<op>.cpp is compiled into both with other
# define_macros (WITH_CUDA only for _cuda); setup.py decides CUDA from torch.cuda.is_available()
# or FORCE_CUDA, so on a machine without a GPU only the _cpu extensions exist unless FORCE_CUDA=1;
# shift's kernel has an nvcc flag scale's has not.
import glob
import os
import os.path as osp
from itertools import product

import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

WITH_CUDA = torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1"
suffices = ["cuda", "cpu"] if WITH_CUDA else ["cpu"]


def get_extensions():
    extensions = []
    for main, suffix in product(sorted(glob.glob(osp.join("csrc", "*.cpp"))), suffices):
        define_macros = [("WITH_PYTHON", None)]
        extra_compile_args = {"cxx": ["-O2", "-Wno-sign-compare"]}
        if suffix == "cuda":
            define_macros += [("WITH_CUDA", None)]
        name = main.split(os.sep)[-1][:-4]
        if suffix == "cuda":
            # shift's kernel wants fast math: another nvcc flag set than scale's
            extra_compile_args["nvcc"] = ["-O2"] + (["--use_fast_math"] if name == "shift" else [])
        sources = [main]
        path = osp.join("csrc", "cpu", f"{name}_cpu.cpp")
        if osp.exists(path):
            sources += [path]
        path = osp.join("csrc", "cuda", f"{name}_cuda.cu")
        if suffix == "cuda" and osp.exists(path):
            sources += [path]
        Extension = CppExtension if suffix == "cpu" else CUDAExtension
        extensions += [Extension(f"pygops._{name}_{suffix}", sources, include_dirs=["csrc"],
                                 define_macros=define_macros,
                                 extra_compile_args=extra_compile_args)]
    return extensions


setup(
    name="pygops",
    version="0.2.0",
    description="Two PyG-shaped ops, each a _cpu and a _cuda extension (a cuwheel init fixture)",
    python_requires=">=3.10",
    install_requires=["torch"],
    packages=["pygops"],
    ext_modules=get_extensions(),
    cmdclass={"build_ext": BuildExtension},
)
