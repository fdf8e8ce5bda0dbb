#!/usr/bin/env python3
"""test_torch_repro.py: a torch cell's wheel depends only on the cell's inputs (issue 27, 3.):
not on which other cells are built (--only), not on the build directory, not on the venv that
provided torch.

A fixture project (kind torch, torch 2.11 for Python 3.12 and 3.13, kernels with -lineinfo, three
binding sources that include torch/extension.h through a project header: ops.cpp uses no Python
(proven Python-free: shared), pyuse.cpp and module.cpp do (per Python, with the PCH), pch =
"auto", ccache off) is built three times, clean, each in its own build dir:
  A  the whole matrix (both Pythons) in <tmp>/full/build
  B  --only cp312-* in <tmp>/only/build
  C  --only cp313-* in <tmp>/other/and/deeper/build
and A's cp312 wheel must equal B's byte for byte, A's cp313 wheel C's. Before the fix, A
precompiled torch/all.h for both Pythons while B and C (one Python: nothing to share) compiled
without a PCH, and torch's headers were named through the venv (its paths in __FILE__ strings).
Also: every build chose the same precompiled header (one shared torch/all.h .gch in each
build.ninja) and the same Python-free object for ops.cpp, the module holds device line info (k.cu in its fatbin: the -lineinfo case is
real), and no module holds the build dir, the temp dir or the venvs' paths.
Needs build/torch-pythons/py3.12 and py3.13 (examples/torchext/setup-pythons) and CUDA 13.0;
exits 77 (skipped) without them. Run by CTest with $CUWHEEL set, from the source root.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
VENVS = os.path.join(ROOT, "build", "torch-pythons")
PYS = {v: os.path.join(VENVS, "py" + v, "bin", "python") for v in ("3.12", "3.13")}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def project(d):
    write(os.path.join(d, "pkg", "reproext", "__init__.py"),
          "import torch  # noqa: F401\n\nfrom ._C import *  # noqa\n")
    write(os.path.join(d, "csrc", "dev.cuh"),
          "__device__ inline float repro_twice(float v) { return 2.0f * v; }\n")
    write(os.path.join(d, "csrc", "k.cu"),
          '#include "dev.cuh"\n'
          "__global__ void repro_kernel(float *x, long n) {\n"
          "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
          "  if (i < n) x[i] = repro_twice(x[i]);\n}\n"
          'extern "C" int repro_launch(float *x, long n) {\n'
          "  repro_kernel<<<(unsigned)((n + 255) / 256), 256>>>(x, n);\n"
          "  return (int)cudaGetLastError();\n}\n")
    write(os.path.join(d, "binding", "common.h"),
          "#pragma once\n#include <torch/extension.h>\n"
          'extern "C" int repro_launch(float *x, long n);\n'
          "at::Tensor twice(const at::Tensor &x);\n")
    write(os.path.join(d, "binding", "ops.cpp"),
          '#include "common.h"\n'
          "at::Tensor twice(const at::Tensor &x) {\n"
          '  TORCH_CHECK(x.scalar_type() == at::kFloat, "twice: float32 only, got ",'
          " x.scalar_type());\n"
          "  at::Tensor out = x.contiguous().clone();\n"
          "  if (out.is_cuda()) {\n"
          "    TORCH_CHECK(repro_launch(out.data_ptr<float>(), out.numel()) == 0);\n"
          "    return out;\n  }\n"
          "  return out * 2;\n}\n")
    write(os.path.join(d, "binding", "pyuse.cpp"),
          '#include "common.h"\n'
          "pybind11::object built_with() { return pybind11::str(TORCH_VERSION); }\n")
    write(os.path.join(d, "binding", "module.cpp"),
          '#include "common.h"\n'
          "pybind11::object built_with();\n"
          "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
          '  m.def("twice", &twice, "2 x");\n  m.def("built_with", &built_with);\n}\n')
    pythons = "".join('"%s" = "%s"\n' % (v, p) for v, p in PYS.items())
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "reproext"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/reproext"]

[tool.cuwheel.kernels]
sources = ["csrc/*.cu"]
include-dirs = ["csrc"]
archs = "9.0"
nvcc-flags = ["-lineinfo"]

[tool.cuwheel.extension]
module = "reproext._C"
kind = "torch"
sources = ["binding/*.cpp"]
include-dirs = ["binding"]
pch = "auto"

[tool.cuwheel.matrix]
python = ["3.12", "3.13"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.cache]
ccache = "off"

[tool.cuwheel.pythons]
{pythons}""")


def build(proj, where, only):
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(where, "build"),
               CUWHEEL_DIST_DIR=os.path.join(where, "dist"))
    args = [CUWHEEL, "-C", proj, "build", "--no-test", "-j", "2"]
    if only:
        args += ["--only", only]
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    ok = check(p.returncode == 0, "build %s in %s exits 0" % (only or "(all cells)", where))
    if not ok:
        print(p.stdout[-3000:], p.stderr[-3000:])
        return {}
    dist = os.path.join(where, "dist")
    nin = open(os.path.join(where, "build", "build.ninja")).read()
    gch = sorted(l.split(":")[0][6:] for l in nin.splitlines()
                 if l.startswith("build ") and ".gch: pch " in l)
    check(len(gch) == 1 and gch[0].startswith("shared/") and gch[0].endswith("/torch_all.h.gch"),
          "%s: the PCH is the one of the whole matrix (one shared torch/all.h): %s"
          % (only or "all cells", gch))
    # Issue 27, 1.: binding/ops.cpp includes torch/extension.h but uses no Python: proven
    # Python-free, one shared object (with the stand-ins first) in every build.
    ops = [l for l in nin.splitlines() if l.startswith("build ") and l.endswith("binding/ops.cpp")]
    check(len(ops) == 1 and ops[0].startswith("build shared/")
          and "-Ipyfree/include" in nin.split(ops[0], 1)[1].split("\nbuild ", 1)[0],
          "%s: binding/ops.cpp is compiled once, Python-free by proof: %s"
          % (only or "all cells", ops))
    return {w.split("-")[2]: os.path.join(dist, w) for w in os.listdir(dist)
            if w.endswith(".whl")}


def module_bytes(wheel):
    with zipfile.ZipFile(wheel) as z:
        so = [n for n in z.namelist() if n.endswith(".so")]
        return z.read(so[0]) if so else b""


def main():
    if not all(os.access(p, os.X_OK) for p in PYS.values()) or \
            not os.path.isdir("/usr/local/cuda-13.0"):
        print("skip: needs build/torch-pythons/py3.12 and py3.13 "
              "(examples/torchext/setup-pythons) and /usr/local/cuda-13.0")
        return 77
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchrepro-")
    try:
        proj = os.path.join(tmp, "proj")
        project(proj)
        a = build(proj, os.path.join(tmp, "full"), None)
        b = build(proj, os.path.join(tmp, "only"), "cp312-*")
        c = build(proj, os.path.join(tmp, "other", "and", "deeper"), "cp313-*")
        check(sorted(a) == ["cp312", "cp313"] and list(b) == ["cp312"] and list(c) == ["cp313"],
              "the full build made both wheels, each --only build its one (%s, %s, %s)"
              % (sorted(a), list(b), list(c)))
        for tag, other, how in (("cp312", b, "--only cp312-*"),
                                ("cp313", c, "--only cp313-* in another, deeper build dir")):
            if tag not in a or tag not in other:
                continue
            x, y = open(a[tag], "rb").read(), open(other[tag], "rb").read()
            check(x == y, "%s: the full build's wheel and the one of %s are byte-identical "
                  "(%d and %d bytes)" % (tag, how, len(x), len(y)))
        for tag, w in sorted(a.items()):
            blob = module_bytes(w)
            check(b"k.cu" in blob, "%s: the module holds device line info (k.cu in it)" % tag)
            # (Device line info names the project's sources by absolute path: nvcc has no
            # prefix map for it. The build dirs and the venvs must not appear.)
            dirs = [os.path.join(tmp, n) for n in ("full", "only", "other")]
            leaks = [s for s in dirs + [os.path.realpath(x) for x in dirs] +
                     [VENVS, os.path.realpath(VENVS), "site-packages", "torch-pythons"]
                     if s.encode() in blob]
            check(not leaks, "%s: the module names no build dir and no venv (%s)" % (tag, leaks))
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s" % tmp)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
