# plainops: a C extension project without torch, shaped like a PyG op pair: one _cpu and one
# _cuda extension compile the same kernel source (csrc/variant.cpp, which includes no Python
# header) with other define_macros (WITH_CUDA only for _cuda), and _cuda also a CUDA kernel
# (csrc/scale.cu). setuptools knows no .cu: a build_ext of its own hands those to nvcc with
# extra_compile_args["nvcc"], the rest to the C compiler with ["cxx"], as such projects do.
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class NvccBuildExt(build_ext):
    def build_extensions(self):
        self.compiler.src_extensions.append(".cu")
        default = self.compiler._compile

        def compile_one(obj, src, ext, cc_args, extra_postargs, pp_opts):
            if src.endswith(".cu"):
                nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
                self.spawn([nvcc, "-c", src, "-o", obj, "-Xcompiler", "-fPIC"] + pp_opts
                           + extra_postargs["nvcc"])
            else:
                default(obj, src, ext, cc_args, extra_postargs["cxx"], pp_opts)

        self.compiler._compile = compile_one
        super().build_extensions()


def ext(suffix, sources, macros):
    return Extension("plainops._" + suffix, ["csrc/%s_module.c" % suffix] + sources,
                     include_dirs=["csrc"], define_macros=macros,
                     extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2"]})


setup(
    name="plainops",
    version="0.1.0",
    description="A _cpu/_cuda extension pair without torch sharing a kernel source "
                "(a cuwheel init fixture)",
    python_requires=">=3.10",
    packages=["plainops"],
    ext_modules=[ext("cpu", ["csrc/variant.cpp"], [("PLAINOPS_CPU", None)]),
                 ext("cuda", ["csrc/variant.cpp", "csrc/scale.cu"], [("WITH_CUDA", None)])],
    cmdclass={"build_ext": NvccBuildExt},
)
