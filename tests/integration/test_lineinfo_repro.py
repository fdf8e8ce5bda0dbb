#!/usr/bin/env python3
"""test_lineinfo_repro.py: kernels built with -lineinfo give byte-identical wheels from two
build dirs (issue 20, point 5).

Device line info records each source as cicc saw it, made absolute against nvcc's working
directory (the build dir), so before the fix two clean builds of one project in build dirs at
other depths gave wheels that differed in those paths. A fixture project (one .cu with a kernel
and a device function in a header, a CPython binding, nvcc-flags = ["-lineinfo"]) is built
clean in <tmp>/b1 and <tmp>/deeper/b2 with ccache off; the two wheels must be byte-identical,
and the module must really hold line info (the kernel file's name in its fatbin; the test would
prove nothing otherwise). A second .cu holds only a template kernel using cuda::std: cudafe++
names its internal-linkage entities with a module id that held its process id unless nvcc gets
its own -frandom-seed (gsplat's RasterizeToPixels2DGSBwd.cu differed so between two builds);
the module must hold such `_INTERNAL_` names. Needs CUDA 13.0 and a Python 3.12; exits 77
(skipped) without them.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def python312():
    cands = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12.*/bin/python3")))
    return cands[-1] if cands else shutil.which("python3.12")


def main():
    py = python312()
    if not py or not os.path.isdir("/usr/local/cuda-13.0"):
        print("skip: needs Python 3.12 and /usr/local/cuda-13.0")
        return 77
    tmp = tempfile.mkdtemp(prefix="cuwheel-lineinfo-")
    failures = []
    try:
        d = os.path.join(tmp, "proj")
        write(os.path.join(d, "pkg", "lineinfo_demo", "__init__.py"), "from . import _C\n")
        write(os.path.join(d, "csrc", "lineinfo_dev.cuh"),
              "__device__ inline float lineinfo_twice(float v) { return 2.0f * v; }\n")
        write(os.path.join(d, "csrc", "lineinfo_k.cu"),
              '#include "lineinfo_dev.cuh"\n'
              "__global__ void lineinfo_kernel(float *x) {\n"
              "  x[threadIdx.x] = lineinfo_twice(x[threadIdx.x]);\n}\n"
              'extern "C" int lineinfo_launch(float *x) { lineinfo_kernel<<<1, 32>>>(x); '
              "return 0; }\n")
        # No non-template external function: cudafe++'s module id comes from the seed (or pid).
        write(os.path.join(d, "csrc", "lineinfo_tmpl.cu"),
              "#include <cuda/std/array>\n"
              "template <typename T> __global__ void lineinfo_tmpl(T *o) {\n"
              "  cuda::std::array<T, 2> a{1, 2};\n"
              "  o[0] = a[0] + (T)cuda::std::size(a);\n}\n"
              "template __global__ void lineinfo_tmpl<float>(float *);\n")
        write(os.path.join(d, "src", "ext.c"),
              "#include <Python.h>\n"
              "static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, \"_C\", NULL, -1, NULL};\n"
              "PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&m); }\n")
        write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "lineinfo-demo"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/lineinfo_demo"]

[tool.cuwheel.kernels]
sources = ["csrc/*.cu"]
include-dirs = ["csrc"]
archs = "9.0"
nvcc-flags = ["-lineinfo"]

[tool.cuwheel.extension]
module = "lineinfo_demo._C"
sources = ["src/ext.c"]

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]

[tool.cuwheel.cache]
ccache = "off"

[tool.cuwheel.pythons]
"3.12" = "{py}"
""")
        wheels = []
        for b in (os.path.join(tmp, "b1"), os.path.join(tmp, "deeper", "and", "b2")):
            env = dict(os.environ, CUWHEEL_BUILD_DIR=b, CUWHEEL_DIST_DIR=b + "-dist")
            p = subprocess.run([CUWHEEL, "-C", d, "build", "--no-test"], capture_output=True,
                               text=True, env=env)
            if p.returncode != 0:
                print(p.stdout[-3000:], p.stderr[-3000:])
                failures.append("build in %s exits 0" % b)
                continue
            wheels += glob.glob(os.path.join(b + "-dist", "*.whl"))
        if len(wheels) != 2:
            failures.append("two wheels built: %s" % wheels)
        else:
            a, b = (open(w, "rb").read() for w in wheels)
            with zipfile.ZipFile(wheels[0]) as z:
                so = [n for n in z.namelist() if n.endswith(".so")]
                blob = z.read(so[0]) if so else b""
            if b"lineinfo_k.cu" not in blob:
                failures.append("the module holds device line info (lineinfo_k.cu in it)")
            else:
                print("ok   the module holds device line info naming lineinfo_k.cu")
            if b"_INTERNAL_" not in blob or b"lineinfo_tmpl" not in blob:
                failures.append("the module holds cudafe++'s internal-linkage names "
                                "(_INTERNAL_...) of lineinfo_tmpl.cu")
            else:
                print("ok   the module holds cudafe++'s _INTERNAL_ names of lineinfo_tmpl.cu")
            if a != b:
                n = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
                failures.append("the wheels from two build dirs are byte-identical (%d bytes "
                                "differ)" % n)
            else:
                print("ok   the wheels from %s and %s are byte-identical (%d bytes)"
                      % (os.path.dirname(wheels[0]), os.path.dirname(wheels[1]), len(a)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
