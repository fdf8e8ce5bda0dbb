#!/usr/bin/env python3
"""test_torch_scan.py: the torch decisions are the preprocessor's (issue 20, points 1-3).

On a fixture project written to a temp dir (kind torch, torch 2.11 from build/torch-pythons),
from `cuwheel plan --json` and the table, and from the build.ninja of `cuwheel build --dry-run`:
  - a .cu whose torch include is behind `#ifndef __CUDACC__` leaves the kernels torch-free (the
    old #include text scan called it torch code); an unguarded ATen include makes them torch
    code, and the nvcc command then names torch's headers through build/torch/<version>-<abi>,
    never through the venv that provided torch;
  - python-free = "auto": a source whose text defines the module (PYBIND11_MODULE outside
    every conditional) is refused from its text, at its line and column; one whose
    PYBIND11_MODULE is inside an #ifndef is left to the proof, which refuses its expansion;
  - binding sources: one that includes only ATen is shared (compiled once per toolkit, torch
    and flags: a shared/ object without the Python include dir, linked by the cell); those that
    include torch/extension.h (via a project header) are per Python, with a precompiled
    torch/extension.h in the cell (one Python: no torch/all.h to share) when three compiles or
    more share one .gch;
  - `#undef NDEBUG` before torch/extension.h changes what <cassert> expands to in torch's headers:
    PCH refused with
    pch = "auto", an error naming the file and pch-exclude with pch = "on", "no (pch-exclude)"
    once excluded;
  - a second plan answers from build/scan (no preprocessor run) and says the same;
  - the scans run -j at a time before the decisions (the Python-free proof's compiles among
    them) decide what one at a time decides, and write the same graph; a kernel that includes
    Python.h (its -M fails on Python.h) has its proof run in those steps too,
    nothing one at a time after them.
Needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons) and CUDA 13.0; exits 77
(skipped) without them. Run by CTest with $CUWHEEL set, from the source root.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
PY = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin", "python")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def project(d, pch="auto", exclude=None, unguarded=False, cu=False, kernel_python=False,
            pyfree="off", pyfree_sources=False, kernel_pyuse=False):
    write(os.path.join(d, "pkg", "scanproj", "__init__.py"), "")
    write(os.path.join(d, "k", "guarded.cu"),
          "#ifndef __CUDACC__\n#include <torch/extension.h>\n#endif\n"
          "__global__ void k(float *x) { x[threadIdx.x] += 1.0f; }\n")
    if unguarded:
        write(os.path.join(d, "k", "torchy.cu"),
              "#include <ATen/core/TensorBase.h>\n"
              "__global__ void t(float *x) { x[threadIdx.x] *= 2.0f; }\n")
    elif os.path.exists(os.path.join(d, "k", "torchy.cu")):
        os.unlink(os.path.join(d, "k", "torchy.cu"))
    for n, text, on in (("py.cu", "#include <Python.h>\n"
                                  "__global__ void kp(float *x) { x[threadIdx.x] += 3.0f; }\n",
                         kernel_python),
                        ("pyuse.cu", "#include <Python.h>\n"
                                     "bool alive(PyObject *o) { return o != 0; }\n",
                         kernel_pyuse)):
        p = os.path.join(d, "k", n)
        if on:
            write(p, text)
        elif os.path.exists(p):
            os.unlink(p)
    # Issue 27, 1.: sources that include Python's headers (through common.h) and do or do not
    # use them.
    for n, text in (("mod.cpp", '#include "common.h"\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) '
                                '{ m.def("one", &one); }\nat::Tensor one(const at::Tensor &);\n'),
                    ("reg.cpp", '#include "common.h"\n'
                                "void reg(pybind11::module &m) { m.attr(\"x\") = 1; }\n"),
                    # PYBIND11_MODULE inside a conditional (one the compiler takes): not
                    # decided from the text, so the proof's -E pair refuses it.
                    ("guardmod.cpp", '#include "common.h"\n#ifndef SCANPROJ_NEVER_DEFINED\n'
                                     "PYBIND11_MODULE(scanproj_alt, m) {}\n#endif\n"),
                    # PyG's op sources: Python.h first (for a Windows PyInit_ stub), then
                    # only torch; its feature macros (_GNU_SOURCE, _POSIX_C_SOURCE, ...)
                    # and its libc headers come first.
                    ("pyfirst.cpp", "#include <Python.h>\n#include <torch/all.h>\n"
                                    "at::Tensor pyfirst(const at::Tensor &x) { return x * 3; }\n")):
        p = os.path.join(d, "b", n)
        if pyfree_sources:
            write(p, text)
        elif os.path.exists(p):
            os.unlink(p)
    for n, text in (("ext.cu", "#include <torch/extension.h>\n"
                               "__global__ void ke(float *x) { x[threadIdx.x] -= 1.0f; }\n"
                               "at::Tensor ext_cu(const at::Tensor &x) { return x - 1; }\n"),
                    ("plain.cu", "#include <ATen/core/TensorBase.h>\n"
                                 "__global__ void kq(float *x) { x[threadIdx.x] *= 3.0f; }\n")):
        p = os.path.join(d, "b", n)
        if cu:
            write(p, text)
        elif os.path.exists(p):
            os.unlink(p)
    write(os.path.join(d, "b", "common.h"),
          "#ifndef SCANPROJ_COMMON_H\n#define SCANPROJ_COMMON_H\n"
          "#include <torch/extension.h>\n#endif\n")
    for n in ("one", "two", "three"):
        write(os.path.join(d, "b", n + ".cpp"),
              '#include "common.h"\nat::Tensor %s(const at::Tensor &x) { return x + 1; }\n' % n)
    write(os.path.join(d, "b", "undef.cpp"),
          "#undef NDEBUG\n#include <torch/extension.h>\n"
          "int checked(int v) { assert(v > 0); return v; }\n")
    write(os.path.join(d, "b", "aten.cpp"),
          "#include <ATen/ATen.h>\nat::Tensor twice(const at::Tensor &x) { return x * 2; }\n")
    extra = ""
    if exclude:
        extra = "pch-exclude = %s\n" % json.dumps(exclude)
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "scanproj"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/scanproj"]

[tool.cuwheel.kernels]
sources = ["k/*.cu"]
archs = "9.0"

[tool.cuwheel.extension]
module = "scanproj._C"
kind = "torch"
sources = ["b/*.cpp"{', "b/*.cu"' if cu else ''}]
include-dirs = ["b"]
pch = "{pch}"
python-free = "{pyfree}"
{extra}
[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.pythons]
"3.12" = "{PY}"
""")


def plan(d, *args):
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(d, "build"),
               CUWHEEL_DIST_DIR=os.path.join(d, "dist"))
    t0 = time.monotonic()
    p = subprocess.run([CUWHEEL, "-C", d, "plan"] + list(args), capture_output=True, text=True,
                       env=env)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def by_source(js):
    """The torch decisions of plan --json (plan.json's torch_plan), per source."""
    return {s["source"]: s for e in (js.get("torch_plan") or {}).get("exts", [])
            for s in e["srcs"]}


def pyfree_checks(d, env):
    """Issue 27, 1.: python-free = "auto" (the default)."""
    project(d, pyfree="auto", pyfree_sources=True, kernel_python=True)
    prefill_checks(d, env)
    rc, out, err, cold = plan(d, "--json")
    if not check(rc == 0, "python-free auto: plan --json exits 0 (%s)" % err.strip()[-1500:]):
        return
    s = by_source(json.loads(out))
    for n in ("one", "two", "three"):
        e = s.get("b/%s.cpp" % n, {})
        check(e.get("python") is False and e.get("pyfree") == "proven"
              and e.get("torch_extension") is True,
              "b/%s.cpp includes torch/extension.h but not uses Python: shared, proven (%s)"
              % (n, e))
    pf = s.get("b/pyfirst.cpp", {})
    check(pf.get("python") is False and pf.get("pyfree") == "proven",
          "b/pyfirst.cpp (Python.h first, then only torch) is shared, proven (%s)" % pf)
    m = s.get("b/mod.cpp", {})
    check(m.get("python") is True and m.get("pyfree") == "refused: defines the module"
          and (m.get("pyfree_why") or "").startswith("b/mod.cpp:2:1: PYBIND11_MODULE "),
          "b/mod.cpp (PYBIND11_MODULE at line 2) stays per Python, decided from its text "
          "at its line and column (%s)" % m)
    g = s.get("b/guardmod.cpp", {})
    check(g.get("python") is True and g.get("pyfree") == "refused: expansion differs"
          and "b/guardmod.cpp" in (g.get("pyfree_why") or ""),
          "b/guardmod.cpp (PYBIND11_MODULE inside #ifndef) is left to the proof, whose "
          "expansion check refuses it (%s)" % g)
    r = s.get("b/reg.cpp", {})
    why = r.get("pyfree_why") or ""
    check(r.get("python") is True and r.get("pyfree") == "refused: does not compile"
          and "error" in why and "b/reg.cpp:2:" in why and "\n" not in why,
          "b/reg.cpp (pybind11::module, no macro) stays per Python with the first error "
          "line (%s)" % r)
    rc, out, err, warm = plan(d, "--json")
    check(rc == 0 and by_source(json.loads(out)) == s and warm < cold / 2,
          "the proof is cached: a second plan says the same in %.1fs (cold: %.1fs)"
          % (warm, cold))
    rc, table, err, _ = plan(d)
    check(rc == 0 and "Python-free by proof" in table
          and "python-free refused: does not compile" in table,
          "the plan table says proven and which check failed")
    p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                       capture_output=True, text=True, env=env)
    nin = open(os.path.join(d, "build", "build.ninja")).read()
    blocks = nin.split("\nbuild ")
    one = [b for b in blocks if b.startswith("shared/") and "b/one.cpp" in b.split("\n")[0]]
    check(p.returncode == 0 and len(one) == 1 and "-Ipyfree/include" in one[0]
          and "python3.12" not in one[0],
          "b/one.cpp: one shared edge with the stand-ins first, no Python include dir (%s)"
          % (one[0][:400] if one else p.stderr[-500:]))
    stand = os.path.join(d, "build", "pyfree", "include")
    pyh = open(os.path.join(stand, "Python.h")).read()
    check("#define _POSIX_C_SOURCE" in pyh and "#define _FILE_OFFSET_BITS 64" in pyh
          and "#include <stdlib.h>" in pyh and "Py_" not in pyh and "PyObject" not in pyh
          and os.path.getsize(os.path.join(stand, "pybind11", "numpy.h")) == 0
          and os.path.getsize(os.path.join(stand, "pybind11", "detail", "common.h")) == 0
          and "torch/all.h" in open(os.path.join(stand, "torch", "extension.h")).read(),
          "the stand-ins: Python.h holds pyconfig.h's feature macros and Python.h's libc "
          "includes, nothing of Python's; every pybind11 header empty, torch/extension.h is "
          "torch/all.h")
    kv = [b for b in blocks if ": nvcc " in b.split("\n")[0] and "k/py.cu" in b.split("\n")[0]]
    check(len(kv) == 1 and "-Ipyfree/include" in kv[0] and "python3" not in kv[0],
          "a kernel with Python.h, proven Python-free, compiled once with the stand-ins")
    project(d, pyfree="auto", kernel_pyuse=True)
    rc, out, err, _ = plan(d)
    check(rc != 0 and "k/pyuse.cu" in err and "not Python-free" in err
          and "does not compile" in err and "PyObject" in err,
          "a kernel that uses PyObject (no macro) is refused, with the failed check: %s"
          % err.strip()[-600:])


def deferred_checks(d):
    """A build does not wait for the proof's compile: b/reg.cpp expands the same without
    Python's headers, so ninja compiles it shared, with the stand-ins, at once; that compile
    fails (pybind11::module), and the build takes the decisions again (reg.cpp per Python,
    refused: does not compile) and runs ninja once more: a wheel, exit 0."""
    write(os.path.join(d, "pkg", "deferproj", "__init__.py"), "")
    write(os.path.join(d, "b", "reg.cpp"),
          "#include <torch/extension.h>\n"
          "void reg(pybind11::module &m) { m.attr(\"x\") = 1; }\n")
    # The module itself (PYBIND11_MODULE: per Python by its text, never tentative).
    write(os.path.join(d, "b", "mod.cpp"),
          "#include <torch/extension.h>\nvoid reg(pybind11::module &m);\n"
          "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { reg(m); }\n")
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "deferproj"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/deferproj"]

[tool.cuwheel.extension]
module = "deferproj._C"
kind = "torch"
sources = ["b/*.cpp"]
pch = "off"

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.cache]
ccache = "off"

[tool.cuwheel.pythons]
"3.12" = "{PY}"
""")
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(d, "build"),
               CUWHEEL_DIST_DIR=os.path.join(d, "dist"))
    p = subprocess.run([CUWHEEL, "-C", d, "build", "--no-test", "--progress", "plain"],
                       capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    nin = open(os.path.join(d, "build", "build.ninja")).read() if os.path.exists(
        os.path.join(d, "build", "build.ninja")) else ""
    # Its compile edge in the cell (by its output: the cell's link names its object too).
    cell = [l for l in nin.splitlines()
            if l.startswith("build cells/") and "b/reg.cpp" in l.split(":")[0]]
    wheels = os.listdir(os.path.join(d, "dist")) if os.path.isdir(os.path.join(d, "dist")) else []
    check(p.returncode == 0 and "compiled per Python now" in out and len(cell) == 1
          and len(wheels) == 1,
          "a build: b/reg.cpp compiled shared by ninja at once, that compile failed, the "
          "decisions again (per Python now), ninja again: a wheel (%s; %s)"
          % (wheels, out.strip()[-1500:]))
    rc, js, err, _ = plan(d, "--json")
    r = by_source(json.loads(js)).get("b/reg.cpp", {}) if rc == 0 else {}
    check(r.get("pyfree") == "refused: does not compile",
          "and plan, from the cache, says why: %s" % r)


def prefill_checks(d, env):
    """The scans the torch decisions need run -j at a time before the decisions are taken
    (each answer into build/scan): the same decisions and graph as one at a time, cold."""
    got = {}
    for j in ("1", "3"):
        b = os.path.join(d, "build-j" + j)
        shutil.rmtree(b, ignore_errors=True)
        t0 = time.monotonic()
        p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test", "-j", j],
                           capture_output=True, text=True, env=dict(env, CUWHEEL_BUILD_DIR=b))
        took = time.monotonic() - t0
        if not check(p.returncode == 0, "build --dry-run -j %s exits 0 (%s)"
                     % (j, p.stderr.strip()[-1500:])):
            return
        plan = json.load(open(os.path.join(b, "plan.json")))
        edges = sorted(l.split(":")[0] for l in open(os.path.join(b, "build.ninja"))
                       if l.startswith("build "))
        scan = os.listdir(os.path.join(b, "scan"))
        got[j] = (plan.get("torch_plan"), plan.get("kernels_torch"), edges,
                  {f for f in scan if f.endswith(".scan")}, [f for f in scan if ".tmp" in f],
                  took, p.stderr)
    one, par = got["1"], got["3"]
    check(one[0] == par[0] and one[1] == par[1] and one[0] and one[0].get("exts"),
          "-j 3 takes the torch decisions -j 1 takes, one scan at a time (%s)"
          % (par[0] if one[0] != par[0] else "same"))
    check(one[2] == par[2], "and writes the same build edges")
    check(one[3] <= par[3] and not par[4],
          "every scan -j 1 asked is answered in build/scan by the prefill (%d of %d), no "
          "temp file left (%s)" % (len(one[3] & par[3]), len(one[3]), par[4]))
    # A failed -M (k/py.cu: Python.h, no Python include dir) is kept for the
    # passes after it: the kernel's proof runs in the steps too, nothing one at a time after.
    check("after the steps" not in par[6] and "one at a time" in one[6],
          "-j 3: every run in the steps, none one at a time after them (%s)"
          % [l for l in par[6].splitlines() if "source scan" in l])
    print("cold plan: -j 1 %.1fs, -j 3 %.1fs" % (one[5], par[5]))


def main():
    if not os.access(PY, os.X_OK) or not os.path.isdir("/usr/local/cuda-13.0"):
        print("skip: needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons) and "
              "/usr/local/cuda-13.0")
        return 77
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchscan-")
    try:
        d = os.path.join(tmp, "proj")
        project(d)
        rc, out, err, cold = plan(d, "--json")
        if not check(rc == 0, "plan --json exits 0 (%s)" % err.strip()[-2000:]):
            return 1
        js = json.loads(out)
        t = js.get("torch_plan") or {}
        check(t.get("kernels_use_torch") is False,
              "a torch include behind #ifndef __CUDACC__ leaves the kernels torch-free: %s"
              % t.get("kernels_why"))
        s = by_source(js)
        check(s.get("b/aten.cpp", {}).get("python") is False,
              "b/aten.cpp (ATen only) is shared: %s" % s.get("b/aten.cpp"))
        for n in ("one", "two", "three"):
            e = s.get("b/%s.cpp" % n, {})
            check(e.get("python") is True and e.get("torch_extension") is True
                  and e.get("pch") == "yes"
                  and "torch/extension.h, one .gch per Python" in (e.get("pch_why") or ""),
                  "b/%s.cpp (torch/extension.h via common.h) is per Python with PCH: %s" % (n, e))
        u = s.get("b/undef.cpp", {})
        why = u.get("pch_why") or ""
        check(u.get("pch") == "refused" and "c10/" in why and "forced first" in why,
              "b/undef.cpp (#undef NDEBUG first): PCH refused, naming the torch headers whose "
              "asserts change: %s" % why[:300])
        rc, table, err, _ = plan(d)
        check(rc == 0 and "b/aten.cpp" in table and "shared: once per (toolkit, torch, flags)"
              in table and "pch refused" in table, "the plan table shows every decision")
        rc, out, err, warm = plan(d, "--json")
        check(rc == 0 and by_source(json.loads(out)) == s,
              "a second plan gives the same answers (%.2fs cold, %.2fs from build/scan)"
              % (cold, warm))
        check(warm < cold, "the second plan is answered from build/scan")

        # build.ninja: the shared object has no Python include dir; PCH edges for the three.
        env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(d, "build"),
                   CUWHEEL_DIST_DIR=os.path.join(d, "dist"))
        p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                           capture_output=True, text=True, env=env)
        check(p.returncode == 0, "build --dry-run exits 0 (%s)" % p.stderr.strip()[-2000:])
        nin = open(os.path.join(d, "build", "build.ninja")).read()
        blocks = nin.split("\nbuild ")
        shared = [b for b in blocks if b.startswith("shared/") and "b/aten.cpp" in b]
        check(len(shared) == 1 and "python3.12" not in shared[0]
              and "torch/2.11" in shared[0] and "torch-pythons" not in shared[0],
              "one shared edge for b/aten.cpp, torch through build/torch/, no Python dir")
        link = [b for b in blocks if ": link " in b.split("\n")[0]]
        check(link and "shared/" in link[0].split("\n")[0],
              "the cell's link takes the shared object")
        pchd = [b for b in blocks if ": cc_pch " in b.split("\n")[0]]
        check(len(pchd) == 3 and all("-include " in b for b in pchd),
              "three sources compiled with -include of the PCH (%d)" % len(pchd))
        gch = [l for l in nin.splitlines() if l.startswith("build ") and ".gch: pch " in l]
        check(len(gch) == 1 and gch[0].startswith("build cells/")
              and "/torch_extension.h.gch: " in gch[0],
              "one .gch of torch/extension.h in the cell's dir (one Python: nothing to share "
              "a torch/all.h with): %s" % gch)

        project(d, pch="on")
        rc, out, err, _ = plan(d)
        check(rc != 0 and "b/undef.cpp" in err and "pch-exclude" in err,
              "pch = on refuses b/undef.cpp with an error naming pch-exclude: %s"
              % err.strip()[-600:])
        project(d, pch="on", exclude=["b/undef.cpp"])
        rc, out, err, _ = plan(d, "--json")
        ok = rc == 0
        check(ok and by_source(json.loads(out)).get("b/undef.cpp", {}).get("pch")
              == "no (pch-exclude)", "pch-exclude takes b/undef.cpp out (%s)" % err.strip())

        project(d, unguarded=True)
        rc, out, err, _ = plan(d, "--json")
        t = (json.loads(out) if rc == 0 else {}).get("torch_plan") or {}
        check(t.get("kernels_use_torch") is True and "k/torchy.cu" in (t.get("kernels_why") or ""),
              "an unguarded ATen include makes the kernels torch code: %s" % t.get("kernels_why"))
        p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                           capture_output=True, text=True, env=env)
        nin = open(os.path.join(d, "build", "build.ninja")).read()
        nv = [b for b in nin.split("\nbuild ") if ": nvcc " in b.split("\n")[0]]
        check(nv and all("-Itorch/2.11" in b and "torch-pythons" not in b for b in nv),
              "the nvcc commands name torch through build/torch/<version>-<abi>, not a venv")

        # Issue 27, 3.: a kernel that includes Python's headers is refused, by name, with
        # what to do (before: nvcc -M's raw error, or one Python's headers for every cell).
        project(d, kernel_python=True)
        rc, out, err, _ = plan(d)
        check(rc != 0 and "k/py.cu" in err and "includes Python's headers" in err
              and "sources of the torch extension" in err and 'python-free = "off"' in err,
              "python-free = off: a kernel .cu with Python.h is refused with the way out: %s"
              % err.strip()[-500:])
        # .cu files among the extension's sources: nvcc's preprocessor decides; the one with
        # torch/extension.h is compiled per Python (its Python's headers), the ATen one once.
        project(d, cu=True)
        rc, out, err, _ = plan(d, "--json")
        s = by_source(json.loads(out)) if rc == 0 else {}
        check(rc == 0 and s.get("b/ext.cu", {}).get("python") is True
              and s.get("b/plain.cu", {}).get("python") is False
              and s.get("b/ext.cu", {}).get("pch") == "no",
              "extension .cu files: ext.cu (torch/extension.h) per Python, plain.cu (ATen) "
              "shared, no PCH (%s; %s)" % (err.strip()[-300:], {k: v for k, v in s.items()
                                                                if k.endswith(".cu")}))
        p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                           capture_output=True, text=True, env=env)
        nin = open(os.path.join(d, "build", "build.ninja")).read()
        blocks = nin.split("\nbuild ")
        ext = [b for b in blocks if ": nvcc " in b.split("\n")[0] and "b/ext.cu" in b.split("\n")[0]]
        plain = [b for b in blocks if ": nvcc " in b.split("\n")[0]
                 and "b/plain.cu" in b.split("\n")[0]]
        check(p.returncode == 0 and len(ext) == 1 and ext[0].startswith("cells/")
              and "-isystem" in ext[0] and "python3.12" in ext[0]
              and "-DTORCH_EXTENSION_NAME=_C" in ext[0],
              "b/ext.cu: one nvcc edge in the cell, with that Python's headers and torch's "
              "flags: %s" % (ext[0][:300] if ext else p.stderr[-500:]))
        check(len(plain) == 1 and plain[0].startswith("shared/") and "python3" not in plain[0],
              "b/plain.cu: one shared nvcc edge without a Python include dir")
        pyfree_checks(d, env)
        deferred_checks(os.path.join(tmp, "deferred"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
