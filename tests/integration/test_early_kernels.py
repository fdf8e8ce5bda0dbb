#!/usr/bin/env python3
"""test_early_kernels.py: a cold `cuwheel build` of a torch project starts its kernels'
compiles before the source scans end, and its graph uses them only where its own command is
the same.

The build guesses the kernels' decisions from their text (torch/kernel_guess.h), runs a
second ninja on the kernel archive in <build-dir>/early while the scans run, and the graph's
nvcc edges take an early object through `cuwheel internal nvcc-overlap` (cli/early.h). On a
fixture written to a temp dir (kind torch, torch 2.11 from build/torch-pythons, Python 3.12,
ccache off; a binding that includes only Python.h, so the scans are cheap):
  - guessed right: k0.cu includes a c10 header (the kernels use torch), k1.cu includes
    Python.h (proven Python-free: the stand-ins come first). The build says it started 2
    compiles early and that the build used 2 of 2; its wheel is the same bytes as that of a
    build with CUWHEEL_EARLY_KERNELS=off in another build dir (which starts none); a build
    after it runs no step and starts none (the objects exist); <build-dir>/early is gone, and
    what an interrupted build left there is removed by the next; the
    same under ccache with an empty cache (a miss runs through the prefix script: the early
    compile is taken over, or fills the cache the edge then hits), the same wheel bytes;
  - guessed wrong: k0.cu's c10 include sits behind #ifdef a macro no flag defines, so the
    guess (any other condition counts as taken) says torch and the scans say torch-free: the
    early ninja is stopped, what it wrote is removed, the build compiles the kernels itself
    and its wheel equals the off build's;
  - torch imported slowly (a venv whose torch is build/torch-pythons/py3.12's, its import
    delayed SLOW_S seconds by a finder of the test's, as a cold disk delays it): a fresh build
    dir's first build reads torch's answers from its files and starts the 2 compiles well
    before the import ends; the import's plan agrees, so the build uses 2 of 2, and its wheel
    is the off build's bytes; probe.py's answer read from files equals the import's;
  - the hand-over itself, `cuwheel internal nvcc-overlap` under CUWHEEL_EARLY: an early run
    (run:DIR) then the build's edge (adopt:DIR) with the same command takes the object, the
    depfile and what nvcc printed, and runs no nvcc; with a header touched after the early
    run started, or another command, it compiles itself and says why in DIR/adopted.log.
Needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons) and CUDA 13.0; exits 77
(skipped) without them. Run by CTest with $CUWHEEL set, from the source root.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import shutil
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, expect, failures, write  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
PY = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin", "python")
NVCC = "/usr/local/cuda-13.0/bin/nvcc"

BINDING = """#include <Python.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&def); }
"""

K0_TORCH = """#include <c10/macros/Macros.h>
__global__ void k0(float *x) { x[threadIdx.x] += 1.0f; }
"""
K0_GUARDED = """#ifdef EARLY_TEST_NEVER_DEFINED
#include <c10/macros/Macros.h>
#endif
__global__ void k0(float *x) { x[threadIdx.x] += 1.0f; }
"""
K1_PYTHON = """#include <Python.h>
__global__ void k1(float *x) { x[threadIdx.x] *= 2.0f; }
"""
K1_PLAIN = """__global__ void k1(float *x) { x[threadIdx.x] *= 2.0f; }
"""


def project(d, k0, k1, py=PY):
    write(os.path.join(d, "pkg", "earlyproj", "__init__.py"), "")
    write(os.path.join(d, "b", "mod.cpp"), BINDING)
    write(os.path.join(d, "csrc", "k0.cu"), k0)
    write(os.path.join(d, "csrc", "k1.cu"), k1)
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "earlyproj"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/earlyproj"]

[tool.cuwheel.kernels]
sources = ["csrc/*.cu"]
archs = "7.5"

[tool.cuwheel.extension]
module = "earlyproj._C"
kind = "torch"
sources = ["b/mod.cpp"]
pch = "off"

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.cache]
ccache = "off"

[tool.cuwheel.pythons]
"3.12" = "{py}"
""")


def build(d, bdir, dist, **extra):
    env = dict(os.environ, CUWHEEL_BUILD_DIR=bdir, CUWHEEL_DIST_DIR=dist, **extra)
    env.pop("CUWHEEL_EARLY", None)
    p = subprocess.run([CUWHEEL, "-C", d, "build", "-j", "2", "--no-test"],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def wheel_sums(dist):
    out = {}
    for w in sorted(os.listdir(dist)) if os.path.isdir(dist) else []:
        with open(os.path.join(dist, w), "rb") as f:
            out[w] = hashlib.sha256(f.read()).hexdigest()
    return out


def right_guess(tmp):
    d = os.path.join(tmp, "right")
    project(d, K0_TORCH, K1_PYTHON)
    rc, out = build(d, os.path.join(tmp, "b-off"), os.path.join(tmp, "dist-off"),
                    CUWHEEL_EARLY_KERNELS="off")
    expect(rc == 0, "guessed right: the build with CUWHEEL_EARLY_KERNELS=off passes", out)
    expect("started while the sources are scanned" not in out,
          "guessed right: CUWHEEL_EARLY_KERNELS=off starts no early compile", out)
    off = wheel_sums(os.path.join(tmp, "dist-off"))
    bdir, dist = os.path.join(tmp, "b-early"), os.path.join(tmp, "dist-early")
    rc, out = build(d, bdir, dist)
    expect(rc == 0, "guessed right: the build passes", out)
    expect("kernels: 2 compiles started while the sources are scanned" in out,
          "guessed right: 2 kernel compiles start early", out)
    expect("kernels: 2 of 2 compiles started early used by the build" in out,
          "guessed right: the build uses both", out)
    check(wheel_sums(dist) == off and len(off) == 1,
          "guessed right: the wheel is the same bytes as the off build's (%s, %s)" %
          (wheel_sums(dist), off))
    check(not os.path.exists(os.path.join(bdir, "early")),
          "guessed right: <build-dir>/early is removed")
    write(os.path.join(bdir, "early", "0123.lock"), "")  # as an interrupted build leaves it
    rc, out = build(d, bdir, dist)
    expect(rc == 0 and "no work to do" in out and "started while" not in out,
          "guessed right: a build after it runs no step and starts nothing early", out)
    check(not os.path.exists(os.path.join(bdir, "early")),
          "guessed right: what an interrupted build left in <build-dir>/early is removed")
    if not shutil.which("ccache"):
        check(False, "guessed right under ccache: ccache is not installed")
        return
    cdist = os.path.join(tmp, "dist-ccache")
    rc, out = build(d, os.path.join(tmp, "b-ccache"), cdist, CUWHEEL_CCACHE="on",
                    CCACHE_DIR=os.path.join(tmp, "ccache"))
    expect(rc == 0 and "kernels: 2 compiles started while the sources are scanned" in out and
           "kernels: 2 of 2 compiles started early used by the build" in out,
           "guessed right under ccache (cold): 2 start early, the build uses both", out)
    check(wheel_sums(cdist) == off, "guessed right under ccache: the same wheel bytes")


def wrong_guess(tmp):
    d = os.path.join(tmp, "wrong")
    project(d, K0_GUARDED, K1_PLAIN)
    rc, out = build(d, os.path.join(tmp, "w-off"), os.path.join(tmp, "wdist-off"),
                    CUWHEEL_EARLY_KERNELS="off")
    expect(rc == 0, "guessed wrong: the off build passes", out)
    off = wheel_sums(os.path.join(tmp, "wdist-off"))
    bdir, dist = os.path.join(tmp, "w-early"), os.path.join(tmp, "wdist-early")
    rc, out = build(d, bdir, dist)
    expect(rc == 0, "guessed wrong: the build passes", out)
    expect("kernels: 2 compiles started while the sources are scanned" in out,
          "guessed wrong: the guess (torch) starts 2 compiles early", out)
    expect("the scans decided other flags than the early compiles had: stopped" in out,
          "guessed wrong: the scans (torch-free) stop them", out)
    expect("used by the build" not in out, "guessed wrong: none is used", out)
    check(wheel_sums(dist) == off and len(off) == 1,
          "guessed wrong: the wheel equals the off build's")
    kernels = os.path.join(bdir, "kernels")
    keys = sorted(os.listdir(kernels)) if os.path.isdir(kernels) else []
    objs = [os.path.join(r, f) for k in keys for r, _, fs in os.walk(os.path.join(kernels, k))
            for f in fs if f.endswith(".o")]
    check(len(objs) == 2, "guessed wrong: only the graph's 2 objects are left (%s)" % objs)


SLOW_S = 15
SLOW_TORCH = """import importlib.machinery, sys, time


class _Loader:
    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        time.sleep(%d)
        self.inner.exec_module(module)


class _Finder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "torch":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None:
            spec.loader = _Loader(spec.loader)
        return spec


sys.meta_path.insert(0, _Finder)
""" % SLOW_S


def slow_venv(tmp):
    """A venv of the torch venv's own Python, its torch the torch venv's (a .pth names that
    site-packages) and `import torch` SLOW_S seconds slower (a .pth installs a finder whose
    loader sleeps before torch runs: finding torch stays instant). Returns its python."""
    home = [l.split("=", 1)[1].strip() for l in open(os.path.join(os.path.dirname(
        os.path.dirname(PY)), "pyvenv.cfg")) if l.startswith("home")][0]
    venv = os.path.join(tmp, "slow-venv")
    subprocess.run([os.path.join(home, "python3"), "-m", "venv", "--without-pip", venv],
                   check=True)
    site = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    torch_site = subprocess.run([PY, "-c", "import sysconfig; print(sysconfig.get_paths()"
                                 "['purelib'])"], capture_output=True, text=True,
                                check=True).stdout.strip()
    write(os.path.join(site, "torch-venv.pth"), torch_site + "\n")
    write(os.path.join(site, "slowtorch.py"), SLOW_TORCH)
    write(os.path.join(site, "zz-slowtorch.pth"), "import slowtorch\n")
    return os.path.join(venv, "bin", "python")


def probe_torch(py, mode):
    """probe.py's torch answer from py in mode ("torch", "torch-files")."""
    script = open(os.path.join(ROOT, "toolchain", "probe.py")).read()
    p = subprocess.run([py, "-I", "-c", script, mode], capture_output=True, text=True)
    line = p.stdout.rsplit("@@cuwheel-probe@@", 1)[-1]
    return json.loads(line)["torch"] if line.strip() else {}


def slow_import(tmp):
    py = slow_venv(tmp)
    d = os.path.join(tmp, "slow")
    project(d, K0_TORCH, K1_PYTHON, py)
    bdir, dist = os.path.join(tmp, "s-early"), os.path.join(tmp, "sdist-early")
    t = time.time()
    rc, out = build(d, bdir, dist)
    wall = time.time() - t
    expect(rc == 0 and wall >= SLOW_S, "slow import: the build passes, in %.1f s (the import "
           "alone takes %d s more)" % (wall, SLOW_S), out)
    m = re.search(r"kernels: 2 compiles started while the sources are scanned \(([0-9.]+) s "
                  r"after the start\)", out)
    expect(m and float(m.group(1)) < SLOW_S / 2,
           "slow import: the 2 compiles start before the import ends (%s s after the start)" %
           (m.group(1) if m else None), out)
    expect("kernels: 2 of 2 compiles started early used by the build" in out,
           "slow import: the import's plan agrees and the build uses both", out)
    rc, out = build(d, os.path.join(tmp, "s-off"), os.path.join(tmp, "sdist-off"),
                    CUWHEEL_EARLY_KERNELS="off")
    check(rc == 0 and wheel_sums(dist) == wheel_sums(os.path.join(tmp, "sdist-off")) and
          len(wheel_sums(dist)) == 1,
          "slow import: the wheel is the same bytes as the off build's")
    imported = {k: v for k, v in probe_torch(PY, "torch").items() if
                not k.startswith("pybind11_") or v is not None}
    read = {k: v for k, v in probe_torch(PY, "torch-files").items() if k != "from_files"}
    check(imported == read and imported.get("present") is True,
          "probe.py: torch's answer read from its files equals the import's (%s; %s)" %
          (read, imported))


def handover(tmp):
    d = os.path.join(tmp, "hand")
    write(os.path.join(d, "inc", "h.h"), "#define SCALE 3.0f\n")
    write(os.path.join(d, "k.cu"), '#include "h.h"\n#warning "early-warning"\n'
          "__global__ void k(float *x) { x[threadIdx.x] *= SCALE; }\n")
    early = os.path.join(d, "early")
    os.makedirs(early)
    # A file whose mtime falls in the early start's clock tick counts as changed after it (the
    # coarse clock file times come from): the sources are older than that tick, as a build's are.
    time.sleep(0.05)
    cmd = [CUWHEEL, "internal", "nvcc-overlap", "--", NVCC, "-O2", "-arch=sm_75", "-Iinc",
           "-MD", "-MF", "k.o.d", "-c", "k.cu", "-o", "k.o"]

    def step(mode, argv=cmd):
        env = dict(os.environ, CUWHEEL_EARLY="%s:%s" % (mode, early))
        t = time.time()
        p = subprocess.run(argv, cwd=d, capture_output=True, text=True, env=env)
        return p.returncode, p.stdout + p.stderr, time.time() - t

    def log():
        path = os.path.join(early, "adopted.log")
        text = open(path).read() if os.path.exists(path) else ""
        if os.path.exists(path):
            os.unlink(path)
        return text

    rc, out, _ = step("run")
    expect(rc == 0 and out == "", "hand-over: the early run passes and prints nothing itself",
          out)
    obj = open(os.path.join(d, "k.o"), "rb").read()
    os.unlink(os.path.join(d, "k.o.d"))  # as ninja's deps = gcc does once it read it
    rc, out, _ = step("adopt")
    expect(rc == 0 and "early-warning" in out,
          "hand-over: the edge takes it and prints what nvcc printed", out)
    check(open(os.path.join(d, "k.o"), "rb").read() == obj and
          "inc/h.h" in open(os.path.join(d, "k.o.d")).read(),
          "hand-over: the object is the early one, the depfile restored")
    check(log().startswith("used\tk.o"), "hand-over: adopted.log says used")
    check(sorted(os.listdir(early)) == [], "hand-over: its files are removed (%s)" %
          os.listdir(early))
    rc, out, _ = step("adopt")
    check(rc == 0 and log() == "", "hand-over: with no early run the edge compiles itself")

    step("run")
    time.sleep(0.05)
    os.utime(os.path.join(d, "inc", "h.h"))
    rc, out, _ = step("adopt")
    text = log()
    expect(rc == 0 and "changed after its early compile started" in text,
          "hand-over: a header touched after the early start: compiled again", text)

    step("run")
    other = cmd[:5] + ["-O3"] + cmd[6:]
    rc, out, _ = step("adopt", other)
    text = log()
    expect(rc == 0 and "ran another command" in text,
          "hand-over: another command: compiled again", text)


def main():
    if not os.access(PY, os.X_OK) or not os.access(NVCC, os.X_OK):
        print("skip: needs %s (examples/torchext/setup-pythons) and %s" % (PY, NVCC))
        return 77
    tmp = tempfile.mkdtemp(prefix="cuwheel-early-")
    try:
        handover(tmp)
        right_guess(tmp)
        wrong_guess(tmp)
        slow_import(tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s" % tmp)
    print("test_early_kernels: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
