"""setup.py: examples/torchext built the way torch extensions ship today, for bench/run's real
peer: setuptools + torch.utils.cpp_extension.CUDAExtension/BuildExtension (ninja, MAX_JOBS), one
full build per Python (`pip wheel --no-build-isolation .`). bench/run copies this file into a
copy of examples/torchext; TORCH_CUDA_ARCH_LIST carries the same archs as its pyproject.toml.
"""
import glob
import os
import shutil

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension


def sources():
    """csrc/*.cu, csrc/*.cpp and the binding. setuptools names objects after the source's stem,
    so csrc/ops.cu and csrc/ops.cpp would both be ops.o (ninja: "multiple rules generate"):
    a .cu whose stem a .cpp shares is built from a copy named <stem>_cuda.cu, the rename
    projects make by hand."""
    cpp = sorted(glob.glob("csrc/*.cpp"))
    stems = {os.path.splitext(p)[0] for p in cpp}
    cu = []
    for p in sorted(glob.glob("csrc/*.cu")):
        if os.path.splitext(p)[0] in stems:
            dst = os.path.splitext(p)[0] + "_cuda.cu"
            shutil.copyfile(p, dst)
            p = dst
        cu.append(p)
    # setup.py runs more than once per pip build: the copy made by the first run is in the glob.
    return (list(dict.fromkeys(cu)) + cpp + sorted(glob.glob("binding/*.cpp")) +
            sorted(glob.glob("binding/*.cu")))


setup(
    packages=["torchext"],
    package_dir={"": "python"},
    ext_modules=[
        CUDAExtension(
            "torchext._C",
            sources=sources(),
            include_dirs=[os.path.abspath("csrc")],  # ninja runs elsewhere: absolute
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
