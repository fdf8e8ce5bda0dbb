#!/usr/bin/env python3
"""test_pybind11_ext.py: an extension of kind pybind11 finds pybind11's headers the way
pybind11's own setup helpers do, from the interpreter that builds it.

Before: the headers were found only through torch's include dirs, so a pybind11 project without
torch failed in its compile step (`pybind11/pybind11.h: No such file or directory`), after the
kernels, with nothing saying why. Now the interpreter probe asks `pybind11.get_include()`; a cell
whose interpreter cannot import pybind11 and whose extension has no include dir holding
pybind11/pybind11.h is refused before anything runs, at the `kind` value, with the fix.

A fixture project (a .cu with a kernel and host functions, one pybind11 binding .cpp) is built
for Python 3.12 and 3.13 (venvs with pybind11 from PyPI), each wheel installed in its venv and
called (`ci github` for it warns that its runners get no pybind11); for 3.11 (no pybind11 installed) from a vendored copy of the headers named in
include-dirs; for 3.10 without either: exit 1, the error at pyproject.toml:LINE:COL of `kind`,
the hint, dist/ untouched. Exits 77 (skipped) without CUDA 13.0 or the pyenv Pythons; when
pybind11 cannot be installed from PyPI the skip is a failure in CI (testskip.py)."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402
from checks import check, failures, run  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))

KERNEL = r"""#include <cuda_runtime.h>
__global__ void pbx_scale_kernel(float *x, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= s;
}
extern "C" int pbx_cuda_devices(void)
{
	int n = 0;
	return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}
extern "C" float pbx_scale_host(float x, float s) { return x * s; }
extern "C" int pbx_scale_gpu(const float *in, float *out, int n, float s)
{
	float *d = NULL;
	if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess)
		return 1;
	cudaMemcpy(d, in, n * sizeof(float), cudaMemcpyHostToDevice);
	pbx_scale_kernel<<<(n + 255) / 256, 256>>>(d, s, n);
	cudaError_t launch = cudaGetLastError();
	cudaError_t copy = cudaMemcpy(out, d, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(d);
	return launch == cudaSuccess && copy == cudaSuccess ? 0 : 2;
}
"""

BINDING = r"""#include <stdexcept>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
extern "C" int pbx_cuda_devices(void);
extern "C" float pbx_scale_host(float x, float s);
extern "C" int pbx_scale_gpu(const float *in, float *out, int n, float s);
PYBIND11_MODULE(_C, m)
{
	m.def("cuda_devices", &pbx_cuda_devices);
	m.def("scale", &pbx_scale_host);
	m.def("scale_gpu", [](const std::vector<float> &v, float s) {
		std::vector<float> out(v.size());
		if (pbx_scale_gpu(v.data(), out.data(), (int)v.size(), s) != 0)
			throw std::runtime_error("pbx: the CUDA kernel did not run");
		return out;
	});
	m.attr("pybind11_version") = PYBIND11_VERSION_MAJOR * 100 + PYBIND11_VERSION_MINOR;
}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def pyenv(ver):
    cands = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{ver}.*/bin/python3")))
    return cands[-1] if cands else None


def project(d, pythons, include_dirs=()):
    write(os.path.join(d, "kernels", "scale.cu"), KERNEL)
    write(os.path.join(d, "src", "bind.cpp"), BINDING)
    write(os.path.join(d, "python", "pbx", "__init__.py"), "from ._C import *  # noqa\n")
    pys = "\n".join(f'"{v}" = "{p}"' for v, p in pythons.items())
    inc = ", ".join(f'"{i}"' for i in include_dirs)
    write(os.path.join(d, "pyproject.toml"), f"""[project]
name = "pbx"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["python/pbx"]

[tool.cuwheel.kernels]
sources = ["kernels/*.cu"]
archs = "8.0,9.0"

[[tool.cuwheel.extension]]
module = "pbx._C"
kind = "pybind11"
sources = ["src/bind.cpp"]
include-dirs = [{inc}]

[tool.cuwheel.matrix]
python = [{", ".join(f'"{v}"' for v in pythons)}]
cuda = ["13.0"]

[tool.cuwheel.pythons]
{pys}
""")


def main():
    need = {v: pyenv(v) for v in ("3.10", "3.11", "3.12", "3.13")}
    if not os.path.isdir("/usr/local/cuda-13.0") or not all(need.values()):
        return testskip.skip_code("needs /usr/local/cuda-13.0 and the pyenv Pythons 3.10-3.13")
    tmp = tempfile.mkdtemp(prefix="cuwheel-pybind11-")
    env = dict(os.environ, CCACHE_DISABLE="1")
    try:
        venvs = {}
        for v in ("3.12", "3.13"):
            vd = os.path.join(tmp, f"venv{v}")
            rc, out = run([need[v], "-m", "venv", vd])
            if rc != 0:
                print(out)
                return testskip.skip_code(f"python{v} -m venv failed")
            rc, out = run([os.path.join(vd, "bin", "python"), "-m", "pip", "install", "-q",
                           "--disable-pip-version-check", "pybind11>=2.10"])
            if rc != 0:
                print(out)
                return testskip.skip_code("cannot install pybind11 from PyPI",
                                          ci_installs="pybind11 (from PyPI)")
            venvs[v] = os.path.join(vd, "bin", "python")

        # 3.12 and 3.13: pybind11 from each interpreter's own package.
        d = os.path.join(tmp, "proj")
        project(d, venvs)
        rc, out = run([CUWHEEL, "-C", d, "build", "--no-test"], env=env)
        check(rc == 0, "cuwheel build of a pybind11 project for 3.12 and 3.13 succeeds")
        if rc != 0:
            print(out)
        ninja = open(os.path.join(d, "build", "cuwheel", "build.ninja")).read()
        for v, py in venvs.items():
            inc = subprocess.run([py, "-c", "import pybind11; print(pybind11.get_include())"],
                                 capture_output=True, text=True).stdout.strip()
            check(f"-I{inc}" in ninja, f"{v}: the binding compile names {inc}")
            tag = "cp" + v.replace(".", "")
            wheels = glob.glob(os.path.join(d, "dist", f"pbx-0.1.0+cu130-{tag}-{tag}-*.whl"))
            if not check(len(wheels) == 1, f"{v}: one wheel in dist/"):
                continue
            rc, out = run([py, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall",
                           "--disable-pip-version-check", wheels[0]])
            check(rc == 0, f"{v}: the wheel installs")
            rc, out = run([py, "-c", "import pbx; print(pbx.scale(2.0, 1.5), "
                           "isinstance(pbx.cuda_devices(), int), pbx.pybind11_version >= 210)"],
                          cwd=tmp)
            check(rc == 0 and out.strip().endswith("3.0 True True"),
                  f"{v}: import pbx, pbx.scale(2.0, 1.5) == 3.0 (got {out.strip()!r})")
            # No GPU here: the kernel's launcher fails and pybind11 turns the C++ exception
            # into a Python RuntimeError (tests/gpu/check_pybind11_gpu.py runs it on a GPU).
            rc, out = run([py, "-c", "import pbx\nif pbx.cuda_devices() == 0:\n"
                           "    try:\n        pbx.scale_gpu([1.0], 2.0)\n"
                           "    except RuntimeError as e:\n        print('raised', e)\n"
                           "else:\n    print('raised', pbx.scale_gpu([1.0], 2.0))"], cwd=tmp)
            check(rc == 0 and out.startswith("raised "),
                  f"{v}: scale_gpu without a GPU raises RuntimeError (got {out.strip()!r})")

        # The GitHub workflow builds with the runners' Pythons: it says it installs no pybind11.
        p = subprocess.run([CUWHEEL, "-C", d, "ci", "github", "--stdout", "--cuwheel",
                            "git+https://github.com/cuwheel/cuwheel@d85fa5402764b63a9f233b6a820d8be0d5ea43b9"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rc, out = p.returncode, p.stderr
        check(rc == 0 and "warning: the workflow installs no pybind11 on the runners" in out
              and "installs pybind11 for each Python" in out,
              "ci github warns that the runners get no pybind11, with the step to add")

        # 3.11 without pybind11: the headers vendored in the project, named in include-dirs.
        inc = subprocess.run([venvs["3.12"], "-c", "import pybind11; print(pybind11.get_include())"],
                             capture_output=True, text=True).stdout.strip()
        d2 = os.path.join(tmp, "vendored")
        shutil.copytree(inc, os.path.join(d2, "third_party", "pybind11", "include"))
        project(d2, {"3.11": need["3.11"]}, ["third_party/pybind11/include"])
        rc, out = run([CUWHEEL, "-C", d2, "build", "--no-test"], env=env)
        check(rc == 0, "3.11 without pybind11 builds from the vendored headers in include-dirs")
        if rc != 0:
            print(out)
        w = glob.glob(os.path.join(d2, "dist", "pbx-0.1.0+cu130-cp311-cp311-*.whl"))
        if check(len(w) == 1, "3.11: one wheel"):
            with zipfile.ZipFile(w[0]) as z:
                check(any(n.startswith("pbx/_C.cpython-311") for n in z.namelist()),
                      "3.11: the wheel holds pbx/_C.cpython-311-*.so")

        # 3.10 without pybind11 and without include-dirs: refused before anything runs.
        d3 = os.path.join(tmp, "missing")
        project(d3, {"3.10": need["3.10"]})
        os.makedirs(os.path.join(d3, "dist"))
        write(os.path.join(d3, "dist", "keep.txt"), "before\n")
        rc, out = run([CUWHEEL, "-C", d3, "build", "--no-test"], env=env)
        kind_line = next(i + 1 for i, l in enumerate(
            open(os.path.join(d3, "pyproject.toml")).read().splitlines())
            if l.startswith("kind = "))
        check(rc == 1, f"3.10 without pybind11: exit 1 (got {rc})")
        check(re.search(rf"pyproject\.toml:{kind_line}:8: error: .*extension pbx\._C is of "
                        r"kind pybind11, but Python 3\.10\.\d+ \(.*\) cannot import pybind11 "
                        r"\(ModuleNotFoundError", out) is not None,
              "the error is at `kind`'s line and column, names the interpreter and why")
        check("-m pip install pybind11" in out and "include-dirs" in out,
              "the hint gives both fixes")
        check("nvcc" not in out and not os.path.exists(
            os.path.join(d3, "build", "cuwheel", "kernels")),
              "nothing was compiled before the refusal")
        check(sorted(os.listdir(os.path.join(d3, "dist"))) == ["keep.txt"],
              "dist/ is as it was")
        if failures:
            print(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
