#!/usr/bin/env python3
"""test_lineinfo_repro.py: kernels built with -lineinfo give the same wheel bytes wherever the
project and the build dir are, with ccache on, with `--only` or without, and from an sdist.

Device line info records each source as cicc saw it, made absolute against nvcc's working
directory; cicc has no prefix map. With bubblewrap, cuwheel compiles such kernels with the
project at /cuwheel/project and the build dir at /cuwheel/build (`cuwheel internal canon`), so
nothing of either real path reaches the wheel. Before that, with ccache on (the default) and
CCACHE_BASEDIR the project, ccache turned the project's absolute paths back into paths relative
to the build dir, which then reached the line info.

A fixture project (one .cu with a kernel and a device function in a header, a CPython binding,
nvcc-flags = ["-lineinfo"], Pythons 3.12 and 3.13, ccache on with a private CCACHE_DIR):

1. `plan` says where the kernels compile (the fixed paths), and with a bwrap that cannot run
   (CUWHEEL_BWRAP=/bin/false) says that the project's own path is named instead;
2. built in <tmp>/p1 into <tmp>/b1 with `--only` the cp312 cell; copied to <tmp>/x/y/p2 (its
   files dated 2001: ptxas records each source's time in the line info) and built into
   <tmp>/z/b2 with both Pythons; its sdist built with a config into <tmp>/b3 (the project
   unpacked inside the build dir, dated when unpacked): the cp312 wheels of the three and the
   cp313 wheels of the last two must be byte-identical;
3. the module holds line info (the kernel file's name under /cuwheel/project in its fatbin: the
   test would prove nothing otherwise) and no real path of a project or build dir; ninja's
   deps name the real header (a second build in b1 has nothing to compile).

A second .cu holds only a template kernel using cuda::std: cudafe++ names its internal-linkage
entities with a module id that held its process id unless nvcc gets its own -frandom-seed; the
module must hold such `_INTERNAL_` names. Needs CUDA 13.0, Pythons 3.12 and 3.13 (~/.pyenv),
ccache and bubblewrap that can make a mount namespace; exits 77 (skipped) without them.
"""
import glob
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
SKIP = 77


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def python(minor):
    cands = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.%d.*/bin/python3" % minor)))
    return cands[-1] if cands else shutil.which("python3.%d" % minor)


def fixture(d, py312, py313):
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
python = ["3.12", "3.13"]
cuda = ["13.0"]

[tool.cuwheel.pythons]
"3.12" = "{py312}"
"3.13" = "{py313}"
""")


def make_sdist(proj, out):
    """The project as an sdist (lineinfo_demo-0.1.0/ with PKG-INFO), as a build backend
    writes one."""
    top = "lineinfo_demo-0.1.0"
    with tarfile.open(out, "w:gz") as t:
        for root, dirs, files in os.walk(proj):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(root, f)
                t.add(p, arcname=os.path.join(top, os.path.relpath(p, proj)))
        info = (b"Metadata-Version: 2.4\nName: lineinfo-demo\nVersion: 0.1.0\n"
                b"Requires-Python: >=3.10\n")
        ti = tarfile.TarInfo(top + "/PKG-INFO")
        ti.size = len(info)
        t.addfile(ti, io.BytesIO(info))


def build(env, proj, bdir, *args):
    env = dict(env, CUWHEEL_BUILD_DIR=bdir, CUWHEEL_DIST_DIR=bdir + "-dist")
    rc, out = run([CUWHEEL, "-C", proj, "build", "--no-test"] + list(args), env=env)
    if not check(rc == 0, "build %s -> %s exits 0" % (" ".join(args) or proj, bdir)):
        print(out[-3000:])
    return {n.split("-")[2]: os.path.join(bdir + "-dist", n)
            for n in os.listdir(bdir + "-dist")} if rc == 0 else {}, out


def so_of(wheel):
    with zipfile.ZipFile(wheel) as z:
        so = [n for n in z.namelist() if n.endswith(".so")]
        return z.read(so[0]) if so else b""


def body(tmp, py312, py313):
    env = dict(os.environ, CCACHE_DIR=os.path.join(tmp, "ccache"))
    env.pop("CCACHE_BASEDIR", None)
    p1 = os.path.join(tmp, "p1")
    fixture(p1, py312, py313)
    rc, out = run([CUWHEEL, "-C", p1, "plan"], env=env)
    check(rc == 0 and "line info: kernels compiled with the project at /cuwheel/project" in out,
          "plan says the kernels with line info compile at the fixed paths")
    rc, out = run([CUWHEEL, "-C", p1, "plan"], env=dict(env, CUWHEEL_BWRAP="/bin/false"))
    check(rc == 0 and "line info: kernels name the project by its own path (%s)" % p1 in out
          and "false cannot make the sandbox here" in out,
          "without a working bwrap, plan says the project's own path is named, and why")

    b1 = os.path.join(tmp, "b1")
    w1, _ = build(env, p1, b1, "--only", "*cp312*")
    p2 = os.path.join(tmp, "x", "y", "p2")
    shutil.copytree(p1, p2)
    # Another checkout: other modification times (ptxas records them in the line info).
    for root, _, files in os.walk(p2):
        for f in files:
            os.utime(os.path.join(root, f), (978307200, 978307200))
    b2 = os.path.join(tmp, "z", "b2")
    w2, _ = build(env, p2, b2)
    sdist = os.path.join(tmp, "lineinfo_demo-0.1.0.tar.gz")
    make_sdist(p1, sdist)
    b3 = os.path.join(tmp, "b3")
    config = os.path.join(tmp, "lineinfo.cuwheel.toml")
    with open(os.path.join(p1, "pyproject.toml")) as f:
        write(config, "[tool.cuwheel]" + f.read().split("[tool.cuwheel]", 1)[1])
    w3, _ = build(env, tmp, b3, sdist, "--config", config)
    if not check(sorted(w1) == ["cp312"] and sorted(w2) == sorted(w3) == ["cp312", "cp313"],
                 "the builds gave cp312 / cp312+cp313 / cp312+cp313 wheels: %s %s %s"
                 % (sorted(w1), sorted(w2), sorted(w3))):
        return
    for tag, ws in (("cp312", [w1, w2, w3]), ("cp313", [w2, w3])):
        blobs = [open(w[tag], "rb").read() for w in ws]
        check(all(b == blobs[0] for b in blobs),
              "the %s wheels of %d builds are byte-identical (%s)"
              % (tag, len(ws), ", ".join("%d bytes" % len(b) for b in blobs)))
    so = so_of(w1["cp312"])
    check(b"/cuwheel/project/csrc/lineinfo_k.cu" in so,
          "the module holds device line info naming /cuwheel/project/csrc/lineinfo_k.cu")
    check(b"_INTERNAL_" in so and b"lineinfo_tmpl" in so,
          "the module holds cudafe++'s _INTERNAL_ names of lineinfo_tmpl.cu")
    leaked = [p for p in (tmp, p1, b1) if p.encode() in so or
              os.path.basename(p).encode() + b"/csrc" in so]
    check(not leaked, "the module names no real project or build dir: %s" % leaked)
    rc, out = run(["ninja", "-C", b1, "-t", "deps"])
    check(rc == 0 and os.path.join(p1, "csrc", "lineinfo_dev.cuh") in out
          and "/cuwheel/" not in out,
          "ninja's deps of b1 name the real header, not /cuwheel/...")
    _, out = build(env, p1, b1, "--only", "*cp312*")
    check("nvcc" not in out.replace("-lineinfo", ""),
          "a second build in b1 compiles nothing:\n" + out[-1500:])


def main():
    py312, py313 = python(12), python(13)
    if not py312 or not py313 or not os.path.isdir("/usr/local/cuda-13.0"):
        print("skip: needs Pythons 3.12 and 3.13 and /usr/local/cuda-13.0")
        return SKIP
    if not shutil.which("ccache"):
        print("skip: needs ccache")
        return SKIP
    bwrap = shutil.which("bwrap")
    if not bwrap or subprocess.run([bwrap, "--dev-bind", "/", "/", "true"]).returncode != 0:
        print("skip: needs bubblewrap that can make a mount namespace here")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="cuwheel-lineinfo-")
    try:
        body(tmp, py312, py313)
    finally:
        if failures:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
