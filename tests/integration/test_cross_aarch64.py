"""test_cross_aarch64: linux_aarch64 wheels cross-built on this x86_64 machine and tested under
qemu-user by the build itself.

Into a temporary cache, `cuwheel cross install` provisions the cross compiler, CUDA 13.0's
aarch64 static runtime and an arm64 CPython 3.14 root from the pinned packages of
toolchain/cross.lock.json; a small project (one kernel for sm_90, an abi3 C binding that calls
cudaGetDeviceCount, a pytest test file) is then built for platform linux_aarch64 with `cuwheel
build`: a cp310-abi3 and a cp314 wheel, tagged manylinux_2_34_aarch64 by the audit, their
modules aarch64 ELF files with the kernel's sm_90 cubin and the target's EXT_SUFFIX; per-Python
cells Debian has no arm64 headers for (3.12) are not buildable, saying why. A wheel holding an
x86_64 and an aarch64 module is refused (elf-arch). The build tests each wheel: a venv of the
arm64 CPython 3.14 (the matrix's; 3.11's headers build the abi3 wheel) whose python runs under
qemu-aarch64-static, the wheel and pytest installed into it by this machine's pip for the
target's tags, the project's test command run there: the module loads on aarch64 in the venv
and, without a CUDA driver, reports cudaErrorInsufficientDriver (35); a test that fails under
qemu fails the build, naming the wheel.

Needs deb.debian.org and PyPI (about 100 MB) and nvcc 13.0, else skips (77); 410 s of CPU
(28 min 41 s of wall time at load 15, most of it apt-get and qemu) on 2026-11-28. Label `cross` (also `long`, so tools/test leaves it out):
`(cd build/ci && ctest -L cross --output-on-failure)`."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import elf_machine, expect, failures, online, run  # noqa: E402
from testskip import skip  # noqa: E402

CW = os.environ["CUWHEEL"]

PYPROJECT = """\
[project]
name = "xprobe"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["xprobe"]

[tool.cuwheel.kernels]
sources = ["k.cu"]
archs = "9.0"
cudart = "static"

[tool.cuwheel.extension]
module = "xprobe._C"
kind = "abi3"
sources = ["bind.c"]

[tool.cuwheel.matrix]
python = ["3.12", "3.14"]
cuda = ["13.0"]
platform = ["linux_aarch64"]
abi3-per-python = true

[tool.cuwheel.test]
requires = ["pytest"]
command = "python -m pytest -q -p no:cacheprovider {project}/tests"
"""

TESTS = """\
import platform
import sys

import xprobe._C as m


def test_runs_on_aarch64_in_a_venv():
    assert platform.machine() == "aarch64"
    assert sys.prefix != sys.base_prefix


def test_no_driver_is_an_error_not_a_crash():
    assert m.device_count() == 35  # cudaErrorInsufficientDriver
"""

KERNEL = """\
extern "C" __global__ void twice(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= 2.0f;
}
extern "C" int device_count(void)
{
	int n = -1;
	return (int)cudaGetDeviceCount(&n);
}
"""

BINDING = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>
int device_count(void);
static PyObject *count(PyObject *self, PyObject *args) { return PyLong_FromLong(device_count()); }
static PyMethodDef methods[] = {{"device_count", count, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, methods};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&mod); }
"""


def module_of(whl):
    with zipfile.ZipFile(whl) as z:
        name = next(n for n in z.namelist() if n.endswith(".so"))
        return name, z.read(name)


def main():
    if shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        skip("no nvcc: the kernels are compiled by this machine's CUDA 13.0")
    if not online():
        skip("deb.debian.org or pypi.org is not reachable: the cross parts are downloaded")
    with tempfile.TemporaryDirectory(prefix="cuwheel-cross-") as tmp:
        env = dict(os.environ, CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        rc, out = run([CW, "cross", "install", "gcc", "cuda-13.0", "python-3.14"], env=env)
        expect(rc == 0, "cuwheel cross install gcc cuda-13.0 python-3.14", out)
        rc, out = run([CW, "cross", "list"], env=env)
        expect(rc == 0 and len(out.splitlines()) == 3 and
               all(line.startswith("linux_aarch64 ") for line in out.splitlines()),
              "cross list shows the three parts", out)
        proj = os.path.join(tmp, "proj")
        os.makedirs(os.path.join(proj, "xprobe"))
        os.makedirs(os.path.join(proj, "tests"))
        for name, text in (("pyproject.toml", PYPROJECT), ("k.cu", KERNEL), ("bind.c", BINDING),
                           ("xprobe/__init__.py", ""), ("tests/test_xprobe.py", TESTS)):
            with open(os.path.join(proj, name), "w") as f:
                f.write(text)
        qemu = shutil.which("qemu-aarch64-static")
        if not qemu:
            skip("no qemu-aarch64-static (Debian's qemu-user-static): the build tests the "
                 "wheels under qemu-user", ci_installs="qemu-user-static")
        rc, out = run([CW, "-C", proj, "plan"], env=env)
        expect(rc == 0 and "cp312-cu130-linux_aarch64" in out and
              "no linux_aarch64 CPython 3.12 headers" in out,
              "plan: no arm64 3.12 headers, said per cell", out)
        rc, out = run([CW, "-C", proj, "build"], env=env)
        expect(rc == 0, "cuwheel build of the linux_aarch64 cells, tested under qemu", out)
        # The build's test steps: each wheel's tests ran on the arm64 CPythons of the matrix
        # it is for (3.11, provisioned for the abi3 cell's headers, is not in the matrix).
        stamps = {}
        for cell in ("cp310-abi3-cu130-linux_aarch64", "cp314-cu130-linux_aarch64"):
            path = os.path.join(proj, "build", "cuwheel", "cells", cell, "tested")
            stamps[cell] = open(path).read() if os.path.exists(path) else ""
        expect([line.split()[1:3] for line in stamps["cp310-abi3-cu130-linux_aarch64"].splitlines()]
              == [["3.14", "pass"]], "the abi3 wheel was tested on arm64 CPython 3.14", stamps)
        expect([line.split()[1:3] for line in stamps["cp314-cu130-linux_aarch64"].splitlines()]
              == [["3.14", "pass"]], "the cp314 wheel was tested on arm64 CPython 3.14", stamps)
        wheels = sorted(glob.glob(os.path.join(proj, "dist", "*.whl")))
        names = [os.path.basename(w) for w in wheels]
        expect(names == ["xprobe-0.1.0+cu130-cp310-abi3-manylinux_2_34_aarch64.whl",
                        "xprobe-0.1.0+cu130-cp314-cp314-manylinux_2_34_aarch64.whl"],
              "two aarch64 wheels, tagged manylinux_2_34_aarch64", names)
        mods = {}
        for w in wheels:
            name, data = module_of(w)
            mods[name] = data
            expect(elf_machine(data) == 183, f"{name}: an aarch64 (EM_AARCH64) ELF file",
                  elf_machine(data))
        expect(sorted(mods) == ["xprobe/_C.abi3.so", "xprobe/_C.cpython-314-aarch64-linux-gnu.so"],
              "the modules' names carry the target's EXT_SUFFIX", sorted(mods))
        rc, out = run([CW, "audit", wheels[1]], env=env)
        expect(rc == 0 and "sm_90" in out, "the audit finds the sm_90 cubin", out)
        # A wheel mixing machines: the aarch64 module beside an x86_64 one of the same name.
        mixed = os.path.join(tmp, "xprobe-0.1.0-cp310-abi3-manylinux_2_34_aarch64.whl")
        x86 = open(CW, "rb").read()
        with zipfile.ZipFile(wheels[0]) as zin, zipfile.ZipFile(mixed, "w") as zout:
            for item in zin.infolist():
                zout.writestr(item, zin.read(item.filename))
            zout.writestr("xprobe/x86.so", x86)
        rc, out = run([CW, "audit", mixed], env=env)
        expect(rc != 0 and "xprobe/x86.so: built for x86_64 while other files are aarch64" in out,
              "a wheel with an x86_64 and an aarch64 ELF file is refused (elf-arch)", out)
        # A test that fails under qemu fails the build, naming the wheel: a test command
        # that sees x86_64.
        with open(os.path.join(proj, "tests", "test_xprobe.py"), "a") as f:
            f.write("\n\ndef test_machine_is_x86_64():\n"
                    "    assert platform.machine() == 'x86_64'\n")
        # The test files are not the step's inputs: its stamp goes, so that it runs again.
        os.remove(os.path.join(proj, "build", "cuwheel", "cells", "cp314-cu130-linux_aarch64",
                               "tested"))
        rc, out = run([CW, "-C", proj, "build", "--only", "cp314-cu130-linux_aarch64"], env=env)
        expect(rc != 0 and "test failed: xprobe-0.1.0+cu130-cp314-cp314-manylinux_2_34_aarch64.whl"
              in out and "1 failed, 2 passed" in out,
              "a failing test under qemu fails the build, naming the wheel", out)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
