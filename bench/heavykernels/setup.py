"""setup.py: heavykernels built the old way, for bench/run's T4old: one full setuptools build per
Python (`pip wheel --no-build-isolation .`), every wheel compiling its own kernels.

A build_ext subclass hands the .cu sources to nvcc, as projects without torch do (and as
torch's BuildExtension does underneath): the same archs and flags as cuwheel's build.ninja
(-O3 -std=c++17, -fPIC, hidden visibility, one -gencode per arch, --threads), the objects
compiled in parallel on every core (BuildExtension's ninja does that too), then setuptools
compiles the C sources with this Python's flags and links the extension with the static CUDA
runtime. Environment: CUDA_HOME (default /usr/local/cuda), HK_ARCHS (default: pyproject's).
"""
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")
ARCHS = os.environ.get("HK_ARCHS", "7.5;8.0;8.6;8.9;9.0;10.0;12.0+PTX")
HERE = os.path.dirname(os.path.abspath(__file__))


def gencode(archs):
    """TORCH_CUDA_ARCH_LIST-style "8.6;9.0;12.0+PTX" -> nvcc -gencode flags."""
    flags = []
    for a in archs.replace(" ", ";").split(";"):
        if not a:
            continue
        ptx = a.endswith("+PTX")
        num = a.replace("+PTX", "").replace(".", "")
        code = f"[sm_{num},compute_{num}]" if ptx else f"sm_{num}"
        flags.append(f"-gencode=arch=compute_{num},code={code}")
    return flags


class NvccBuildExt(build_ext):
    def build_extension(self, ext):
        cu = [s for s in ext.sources if s.endswith(".cu")]
        ext.sources = [s for s in ext.sources if not s.endswith(".cu")]
        jobs = min(len(cu), os.cpu_count() or 1)
        threads = max(1, (os.cpu_count() or 1) // max(jobs, 1))
        os.makedirs(self.build_temp, exist_ok=True)

        def nvcc(src):
            obj = os.path.join(self.build_temp, os.path.basename(src) + ".o")
            cmd = [os.path.join(CUDA_HOME, "bin", "nvcc"), "-O3", "-std=c++17",
                   "-Xcompiler=-fPIC", "-Xcompiler=-fvisibility=hidden",
                   "--threads", str(threads), *gencode(ARCHS),
                   *[f"-I{d}" for d in ext.include_dirs], "-c", src, "-o", obj]
            print(" ".join(cmd), flush=True)
            subprocess.run(cmd, check=True)
            return obj

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            objs = list(pool.map(nvcc, cu))
        ext.extra_objects = objs + list(ext.extra_objects or [])
        super().build_extension(ext)


csrc = os.path.join("csrc")
setup(
    packages=["heavykernels"],
    package_dir={"": "python"},
    ext_modules=[
        Extension(
            "heavykernels._C",
            sources=sorted(os.path.join("csrc", f) for f in os.listdir(os.path.join(HERE, "csrc"))
                           if f.endswith((".cu", ".c"))) + ["binding/heavykernels.c"],
            include_dirs=["csrc", os.path.join(CUDA_HOME, "include")],
            extra_objects=[],
            extra_link_args=[os.path.join(CUDA_HOME, "lib64", "libcudart_static.a"),
                             "-lrt", "-lpthread", "-ldl"],
            language="c++",
        )
    ],
    cmdclass={"build_ext": NvccBuildExt},
)
