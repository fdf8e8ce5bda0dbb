"""test_cross_torch_aarch64: examples/torchext's and examples/torchstable's linux_aarch64 wheels,
cross-built on this x86_64 machine against torch's aarch64 wheel, and torchext's tested under
qemu-user with torch's aarch64 wheel and its CUDA dependencies from PyPI.

Into a temporary cache, `cuwheel build` provisions the cross compiler, CUDA 13.0's aarch64
runtime, the arm64 CPython 3.13 root and the torch part of toolchain/cross.lock.json (torch
2.11.0's cp313 manylinux_2_28_aarch64 wheel, 420 MB, pinned by sha256: its headers and
libraries, and libcudart.so.13 from NVIDIA's aarch64 runtime wheel). examples/torchext (copied,
CUWHEEL_MATRIX_PLATFORM=linux_aarch64): `plan` says per cell which torch part it lacks (none is
pinned for Python 3.12: Debian has no arm64 3.12 headers), `build` makes
torchext-0.1.0+pt211cu130-cp313-cp313-manylinux_2_34_aarch64.whl (an aarch64 module linking
torch's libc10.so, libtorch_cpu.so, libc10_cuda.so and libcudart.so.13) and tests it: this
machine's pip installs the wheel, torch 2.11.0 and every dependency torch declares for aarch64
(cuda-toolkit 13.0.2's libraries, cudnn, nccl, nvshmem, cusparselt, triton: 2.7 GB) into a venv
of the arm64 CPython 3.13, whose python runs under qemu-aarch64-static, and the example's
pytest suite runs there (the CPU paths; import torch alone took 263 s of CPU under qemu the
first time). examples/torchstable's one stable-ABI wheel is built for linux_aarch64 and
tested the same way with the torch it was built against (torch==2.11.* installed with it: a
cross Python has no torch of its own to pair it with).

Needs deb.debian.org and PyPI (about 3.3 GB) and nvcc 13.0, else skips (77). Label `cross`
(also `long`): `(cd build/ci && ctest -R test_cross_torch_aarch64 --output-on-failure)`."""
import glob
import os
import shutil
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import elf_machine, expect, failures, online, run  # noqa: E402
from testskip import skip  # noqa: E402

CW = os.environ["CUWHEEL"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def modules_of(whl):
    with zipfile.ZipFile(whl) as z:
        return {n: z.read(n) for n in z.namelist() if n.endswith(".so")}


def copy_example(name, dest):
    shutil.copytree(os.path.join(ROOT, "examples", name), dest,
                    ignore=shutil.ignore_patterns("build", "dist", "__pycache__", "*.so"))
    return dest


def main():
    if shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda-13.0/bin/nvcc"):
        skip("no nvcc: the kernels are compiled by this machine's CUDA 13.0")
    if not shutil.which("qemu-aarch64-static"):
        skip("no qemu-aarch64-static (Debian's qemu-user-static): the build tests the wheel "
             "under qemu-user", ci_installs="qemu-user-static")
    if not online():
        skip("deb.debian.org or pypi.org is not reachable: the cross parts and torch's "
             "aarch64 wheels are downloaded")
    with tempfile.TemporaryDirectory(prefix="cuwheel-crosstorch-") as tmp:
        env = dict(os.environ, CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"),
                   CUWHEEL_MATRIX_PLATFORM="linux_aarch64")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        ext = copy_example("torchext", os.path.join(tmp, "torchext"))
        cell = "cp313-pt211-cu130-linux_aarch64"
        only = ["--only", "cp31[23]-pt211-cu130-linux_aarch64"]
        # An empty cache: every part the cell lacks is named in one command (the cross
        # compiler, CUDA's aarch64 runtime, torch's wheel and its Python); once the first two
        # are installed, the torch part alone.
        rc, out = run([CW, "-C", ext, "plan"] + only, env=env)
        expect(rc == 0 and "the linux_aarch64 cross parts are not installed (the cross "
               "compiler, the CUDA 13.0 runtime, torch 2.11.0 for Python 3.13): `cuwheel build` "
               "provisions them (cuwheel cross install gcc cuda-13.0 torch-2.11.0-cp313 "
               "python-3.13)" in out,
               "plan, empty cache: every part the cell lacks, in one command", out)
        rc, out = run([CW, "cross", "install", "gcc", "cuda-13.0"], env=env)
        expect(rc == 0, "cuwheel cross install gcc cuda-13.0", out)
        rc, out = run([CW, "-C", ext, "plan"] + only, env=env)
        expect(rc == 0 and "the linux_aarch64 cross parts are not installed (torch 2.11.0 for "
               "Python 3.13): `cuwheel build` provisions them (cuwheel cross install "
               "torch-2.11.0-cp313 python-3.13)" in out and
               "the cross lock pins no linux_aarch64 torch 2.11 wheel for Python 3.12" in out,
               "plan: the torch part a cell lacks, and the Python none is pinned for", out)
        rc, out = run([CW, "-C", ext, "build", "--only", cell, "-j", "2"], env=env)
        expect(rc == 0, f"cuwheel build {cell}: provisioned, built, tested under qemu", out)
        rc, parts = run([CW, "cross", "list"], env=env)
        expect("torch-2.11.0-cp313" in parts, "the torch part is in the cache", parts)
        wheels = [os.path.basename(w) for w in glob.glob(os.path.join(ext, "dist", "*.whl"))]
        want = "torchext-0.1.0+pt211cu130-cp313-cp313-manylinux_2_34_aarch64.whl"
        expect(wheels == [want], f"one wheel: {want}", wheels)
        if wheels == [want]:
            mods = modules_of(os.path.join(ext, "dist", want))
            expect(list(mods) == ["torchext/_C.cpython-313-aarch64-linux-gnu.so"] and
                   elf_machine(mods["torchext/_C.cpython-313-aarch64-linux-gnu.so"]) == 183,
                   "its module is an aarch64 ELF file with the target's EXT_SUFFIX", list(mods))
            rc, out = run([CW, "audit", os.path.join(ext, "dist", want)], env=env)
            expect(rc == 0 and "libc10.so (torch)" in out and "libcudart.so.13 (torch)" in out
                   and "sm_120" in out,
                   "the audit: torch's libraries and CUDA's runtime come with torch", out)
        stamp = os.path.join(ext, "build", "cuwheel", "cells", cell, "tested")
        text = open(stamp).read() if os.path.exists(stamp) else ""
        expect([line.split()[1:3] for line in text.splitlines()] == [["3.13", "pass"]],
               "the wheel's tests passed on arm64 CPython 3.13 with torch 2.11.0", text)
        stable = copy_example("torchstable", os.path.join(tmp, "torchstable"))
        rc, out = run([CW, "-C", stable, "build", "-j", "2"], env=env)
        wheels = [os.path.basename(w) for w in glob.glob(os.path.join(stable, "dist", "*.whl"))]
        want = "torchstable-0.1.0+cu130-cp310-abi3-manylinux_2_34_aarch64.whl"
        expect(rc == 0 and wheels == [want],
               f"examples/torchstable: one stable-ABI wheel, {want}", out + str(wheels))
        stamp = os.path.join(stable, "build", "cuwheel", "cells",
                             "cp310-abi3-cu130-linux_aarch64", "tested")
        text = open(stamp).read() if os.path.exists(stamp) else ""
        expect([line.split()[1:3] for line in text.splitlines()] == [["3.13-torch2.11", "pass"]],
               "the stable-ABI wheel's tests passed on arm64 CPython 3.13 with torch 2.11", text)
        if wheels == [want]:
            mods = modules_of(os.path.join(stable, "dist", want))
            expect(all(elf_machine(d) == 183 for d in mods.values()) and mods,
                   "its modules are aarch64 ELF files", list(mods))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
