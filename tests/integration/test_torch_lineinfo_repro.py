#!/usr/bin/env python3
"""test_torch_lineinfo_repro.py: a torch extension's own .cu sources built with -lineinfo give
the same wheel bytes wherever the project and the build dir are, with ccache on, with `--only`
or without.

A torch extension's .cu sources (in `[[tool.cuwheel.extension]] sources`, not the kernels
table) with -lineinfo in the extension's nvcc-flags are compiled, like such kernels, with the
project at /cuwheel/project and the build dir at /cuwheel/build (`cuwheel internal canon`):
a .cu proven Python-free once per (toolkit, torch, flags) under shared/, by the proof's own
compile (whose object the build copies), and a .cu that uses Python per Python.

The fixture (kind torch, torch 2.11 for Python 3.12 and 3.13, CUDA 13.0, one arch, ccache on
with a private CCACHE_DIR; no torch header is compiled, so it stays cheap):
- csrc/k_free.cu includes Python.h and uses nothing of it (proven Python-free: shared, the
  proof's object), a kernel calling a device function of csrc/dev.cuh;
- csrc/k_py.cu uses PY_VERSION (compiled per Python), a kernel calling the same function;
- binding/module.cpp, the module's init (per Python).

1. `plan` in <tmp>/b1 says the extension's .cu sources compile at the fixed paths, and with a
   bwrap that cannot run (CUWHEEL_BWRAP=/bin/false) that the project's own path is named;
2. built in <tmp>/p1 into <tmp>/b1 with `--only` the cp312 cell; copied to <tmp>/x/y/p2 (its
   files dated 2001: ptxas records each source's time) and built into <tmp>/z/b2 with both
   Pythons: the cp312 wheels must be byte-identical;
3. k_free.cu's object is shared: in b1 the Python-free proof's (run by `plan` in b1, its
   object copied into shared/), in b2 the build's own compile; the module holds line info of both .cu under /cuwheel/project and no real path of a
   project or build dir; ninja's deps name the real header; b2's build recorded its compile
   of k_free.cu as the proof's answer, so a `plan` in b2 compiles nothing.

Needs build/torch-pythons/py3.12 and py3.13 (examples/torchext/setup-pythons), CUDA 13.0,
ccache and bubblewrap that can make a mount namespace; exits 77 (skipped) without them. Run by
CTest with $CUWHEEL set, from the source root.
"""
import os
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, in_tmp, run, write  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
VENVS = os.path.join(ROOT, "build", "torch-pythons")
PYS = {v: os.path.join(VENVS, "py" + v, "bin", "python") for v in ("3.12", "3.13")}
SKIP = 77


def fixture(d):
    write(os.path.join(d, "pkg", "tli", "__init__.py"), "from . import _C  # noqa: F401\n")
    write(os.path.join(d, "csrc", "dev.cuh"),
          "__device__ inline float tli_twice(float v) { return 2.0f * v; }\n")
    write(os.path.join(d, "csrc", "k_free.cu"),
          "#include <Python.h>\n"
          '#include "dev.cuh"\n'
          "__global__ void tli_free(float *x) {\n"
          "  x[threadIdx.x] = tli_twice(x[threadIdx.x]);\n}\n"
          'extern "C" int tli_free_launch(float *x) { tli_free<<<1, 32>>>(x); return 0; }\n')
    write(os.path.join(d, "csrc", "k_py.cu"),
          "#include <Python.h>\n"
          '#include "dev.cuh"\n'
          "__global__ void tli_py(float *x) {\n"
          "  x[threadIdx.x] = tli_twice(x[threadIdx.x]) + 1.0f;\n}\n"
          'extern "C" const char *tli_py_version(float *x) { tli_py<<<1, 32>>>(x); '
          "return PY_VERSION; }\n")
    write(os.path.join(d, "binding", "module.cpp"),
          "#include <Python.h>\n"
          'extern "C" const char *tli_py_version(float *x);\n'
          'extern "C" int tli_free_launch(float *x);\n'
          'static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};\n'
          'extern "C" PyMODINIT_FUNC PyInit__C(void) {\n'
          "  if (!tli_py_version(nullptr) || tli_free_launch(nullptr)) return NULL;\n"
          "  return PyModule_Create(&m);\n}\n")
    pythons = "".join('"%s" = "%s"\n' % (v, p) for v, p in PYS.items())
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "tli"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/tli"]

[[tool.cuwheel.extension]]
module = "tli._C"
kind = "torch"
sources = ["binding/module.cpp", "csrc/k_free.cu", "csrc/k_py.cu"]
include-dirs = ["csrc"]
nvcc-flags = ["-lineinfo"]
pch = "off"

[tool.cuwheel.kernels]
archs = "9.0"

[tool.cuwheel.matrix]
python = ["3.12", "3.13"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.pythons]
{pythons}""")


def build(env, proj, bdir, rule, *args):
    """Builds proj in bdir; k_free.cu's shared object must come from rule (proof_obj: the
    proof's compile, which a `plan` in bdir ran; nvcc_canon: the build's own)."""
    env = dict(env, CUWHEEL_BUILD_DIR=bdir, CUWHEEL_DIST_DIR=bdir + "-dist")
    rc, out = run([CUWHEEL, "-C", proj, "build", "--no-test", "-j", "2"] + list(args), env=env)
    if not check(rc == 0, "build %s -> %s exits 0" % (" ".join(args) or proj, bdir)):
        print(out[-3000:])
        return {}, out
    nin = open(os.path.join(bdir, "build.ninja")).read()
    edges = [ln for ln in nin.splitlines() if ln.startswith("build ") and ".cu" in ln
             and ": link " not in ln]
    check(any(ln.startswith("build shared/") and "k_free.cu" in ln and (": %s " % rule) in ln
              for ln in edges)
          and all(": proof_obj " in ln or ": nvcc_canon " in ln for ln in edges),
          "%s: csrc/k_free.cu's object is shared, by rule %s; every .cu compiles at the fixed "
          "paths: %s" % (bdir, rule, edges))
    return {n.split("-")[2]: os.path.join(bdir + "-dist", n)
            for n in os.listdir(bdir + "-dist")}, out


def so_of(wheel):
    with zipfile.ZipFile(wheel) as z:
        so = [n for n in z.namelist() if n.endswith(".so")]
        return z.read(so[0]) if so else b""


def body(tmp):
    env = dict(os.environ, CCACHE_DIR=os.path.join(tmp, "ccache"))
    env.pop("CCACHE_BASEDIR", None)
    p1 = os.path.join(tmp, "p1")
    fixture(p1)
    b1 = os.path.join(tmp, "b1")
    # plan in b1 runs the Python-free proof of k_free.cu, its compile the build's: b1's build
    # copies its object.
    rc, out = run([CUWHEEL, "-C", p1, "plan", "--only", "*cp312*"],
                  env=dict(env, CUWHEEL_BUILD_DIR=b1))
    check(rc == 0 and "line info: the .cu sources of extension 'tli._C' compiled with the "
          "project at /cuwheel/project" in out,
          "plan says the extension's .cu sources with line info compile at the fixed paths:\n"
          + "\n".join(ln for ln in out.splitlines() if "line info" in ln))
    rc, out = run([CUWHEEL, "-C", p1, "plan", "--only", "*cp312*"],
                  env=dict(env, CUWHEEL_BUILD_DIR=b1, CUWHEEL_BWRAP="/bin/false"))
    check(rc == 0 and "line info: the .cu sources of extension 'tli._C' name the project by "
          "its own path (%s)" % p1 in out and "false cannot make the sandbox here" in out,
          "without a working bwrap, plan says the project's own path is named, and why")
    w1, _ = build(env, p1, b1, "proof_obj", "--only", "*cp312*")
    p2 = os.path.join(tmp, "x", "y", "p2")
    shutil.copytree(p1, p2)
    # Another checkout: other modification times (ptxas records them in the line info).
    for root, _, files in os.walk(p2):
        for f in files:
            os.utime(os.path.join(root, f), (978307200, 978307200))
    b2 = os.path.join(tmp, "z", "b2")
    w2, _ = build(env, p2, b2, "nvcc_canon")
    if not check(sorted(w1) == ["cp312"] and sorted(w2) == ["cp312", "cp313"],
                 "the builds gave cp312 / cp312+cp313 wheels: %s %s" % (sorted(w1), sorted(w2))):
        return
    x, y = open(w1["cp312"], "rb").read(), open(w2["cp312"], "rb").read()
    check(x == y, "the cp312 wheels of p1/b1 --only and p2/b2 (both Pythons) are byte-identical "
          "(%d and %d bytes)" % (len(x), len(y)))
    for tag, w in (("cp312", w1["cp312"]), ("cp313", w2["cp313"])):
        so = so_of(w)
        for f in ("k_free.cu", "k_py.cu"):
            check(b"/cuwheel/project/csrc/" + f.encode() in so,
                  "%s: the module holds device line info naming /cuwheel/project/csrc/%s"
                  % (tag, f))
        leaked = [p for p in (tmp, os.path.realpath(tmp), p1, p2, b1, b2) if p.encode() in so]
        check(not leaked and b"b1/" not in so and b"b2/" not in so,
              "%s: the module names no real project or build dir: %s" % (tag, leaked))
    # b2's build compiled k_free.cu itself and recorded that as the proof's answer (the same
    # command, through canon): plan in b2 then runs no compile of the proof (keeps no object).
    scan = os.path.join(b2, "scan")
    before = [n for n in os.listdir(scan) if n.endswith(".obj")]
    rc, out = run([CUWHEEL, "-C", p2, "plan"], env=dict(env, CUWHEEL_BUILD_DIR=b2))
    after = [n for n in os.listdir(scan) if n.endswith(".obj")]
    check(rc == 0 and not before and not after,
          "plan in b2 after its build runs no compile of the proof (the build recorded it): "
          "objects kept %s -> %s" % (before, after))
    rc, out = run(["ninja", "-C", b2, "-t", "deps"])
    check(rc == 0 and os.path.join(p2, "csrc", "dev.cuh") in out and "/cuwheel/" not in out,
          "ninja's deps of b2 name the real header, not /cuwheel/...")


def main():
    if not all(os.access(p, os.X_OK) for p in PYS.values()) or \
            not os.path.isdir("/usr/local/cuda-13.0"):
        print("skip: needs build/torch-pythons/py3.12 and py3.13 "
              "(examples/torchext/setup-pythons) and /usr/local/cuda-13.0")
        return SKIP
    if not shutil.which("ccache"):
        print("skip: needs ccache")
        return SKIP
    bwrap = shutil.which("bwrap")
    if not bwrap or subprocess.run([bwrap, "--dev-bind", "/", "/", "true"]).returncode != 0:
        print("skip: needs bubblewrap that can make a mount namespace here")
        return SKIP
    return in_tmp("torch-lineinfo", body)


if __name__ == "__main__":
    sys.exit(main())
