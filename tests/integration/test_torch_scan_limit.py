#!/usr/bin/env python3
"""test_torch_scan_limit.py: a source over the torch scan's limit is refused where it is named.

The torch scan reads each source whole (its bytes key the cached answer), at most 256 MiB, the
sdist reader's cap on a member. A kind-torch project whose kernel source, then whose binding
source, is one byte over (a sparse file: nothing is written to disk) makes `cuwheel plan` exit
1 with "<file>: error: 268435457 bytes is over the 268435456-byte limit for a source the torch
scan reads" and nothing under dist/, before any compiler reads it. Needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons)
and CUDA 13.0; exits 77 (skipped) without them."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
PY = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin", "python")
LIMIT = 256 << 20
FAILS = []


def check(what, ok, detail=""):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}: {detail}"[:3000], flush=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def sparse(path, size):
    """A file of size bytes, all zero, that takes no room on disk."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)


def project(d):
    write(os.path.join(d, "pkg", "scanlimit", "__init__.py"), "")
    write(os.path.join(d, "k", "k.cu"), "__global__ void k(float *x) { x[threadIdx.x] += 1; }\n")
    write(os.path.join(d, "b", "one.cpp"),
          "#include <ATen/ATen.h>\nat::Tensor one(const at::Tensor &x) { return x + 1; }\n")
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "scanlimit"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/scanlimit"]

[tool.cuwheel.kernels]
sources = ["k/*.cu"]
archs = "9.0"

[tool.cuwheel.extension]
module = "scanlimit._C"
kind = "torch"
sources = ["b/*.cpp"]

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.pythons]
"3.12" = "{PY}"
""")


def plan(d):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUWHEEL_", "GITHUB_"))}
    env.update(NO_COLOR="1", CUWHEEL_CACHE_DIR=os.path.join(d, "cache"))
    p = subprocess.run([CUWHEEL, "-C", d, "plan"], capture_output=True, text=True, env=env,
                       timeout=1200)
    return p.returncode, p.stdout, p.stderr


def refused(d, rel):
    """plan refuses the source rel, one byte over the limit, naming it."""
    sparse(os.path.join(d, rel), LIMIT + 1)
    rc, out, err = plan(d)
    check(f"{rel} over the limit: plan exits 1", rc == 1, err[-2000:])
    want = (f"{os.path.basename(rel)}: error: {LIMIT + 1} bytes is over the {LIMIT}-byte limit "
            "for a source the torch scan reads")
    check(f"{rel} over the limit: the error names the file, the size and the limit",
          want in err, err[-2000:])
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        check(f"{rel}: no sanitizer report", bad not in err, err[-2000:])
    check(f"{rel}: nothing in dist/", not os.path.exists(os.path.join(d, "dist")))
    print(f"{rel}: exit {rc}: {[ln for ln in err.splitlines() if 'limit' in ln][:1]}",
          flush=True)


def main():
    if not os.path.exists(PY):
        return testskip.skip_code("needs build/torch-pythons/py3.12 "
                                  "(examples/torchext/setup-pythons)")
    if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda-13.0/bin/nvcc") or
            os.path.exists("/usr/local/cuda/bin/nvcc")):
        return testskip.skip_code("needs CUDA 13.0")
    with tempfile.TemporaryDirectory(prefix="cuwheel-scanlimit-") as tmp:
        d = os.path.join(tmp, "proj")
        project(d)
        refused(d, "k/big.cu")
        os.unlink(os.path.join(d, "k", "big.cu"))
        refused(d, "b/big.cpp")
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("a source over the torch scan's limit is refused, named, with its size and the limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
