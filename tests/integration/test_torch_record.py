#!/usr/bin/env python3
"""test_torch_record.py: a build records the Python-free proof's answer that its own compile
gave, so that `cuwheel plan` and the next build after it run no compile of the proof.

On a fixture project written to a temp dir (kind torch, torch 2.11 from build/torch-pythons,
Python 3.12, no kernels): b/op.cpp includes torch/extension.h and uses only torch (proven
Python-free: a build leaves its proof's compile to ninja's compile of the shared object, the
decision tentative), b/mod.cpp holds PYBIND11_MODULE (per Python).
  - a cold build exits 0 with a wheel, op.cpp compiled once, shared, by ninja, and no second
    ninja run;
  - its scan cache then holds the proof's answer for that compile ("b": the build's compile,
    no object kept);
  - `cuwheel plan` after it says op.cpp is proven and compiles nothing (no object kept in
    build/scan, a few CPU seconds: the compile of op.cpp costs ~20 CPU-s);
  - a build after it runs no step (ninja: no work to do), its wheel the same bytes;
  - neither runs the -E of Python.h that the stand-in headers are read from: the cold build
    kept its answer in build/pyfree/python-h-*.answer, and plan and build leave it as it is.
CPU seconds are those of cuwheel and its children (getrusage), printed. Needs
build/torch-pythons/py3.12 (examples/torchext/setup-pythons); exits 77 (skipped) without it.
Run by CTest with $CUWHEEL set, from the source root.
"""
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures, write  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
PY = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin", "python")
# A plan or no-op build reads the scan cache (thousands of torch headers' mtimes): under 1 CPU-s
# here; the proof's compile of op.cpp alone is ~20.
MAX_CPU = 5.0


def project(d):
    write(os.path.join(d, "pkg", "recproj", "__init__.py"), "")
    write(os.path.join(d, "b", "op.cpp"),
          "#include <torch/extension.h>\n"
          "at::Tensor twice(const at::Tensor &x) { return x * 2; }\n")
    write(os.path.join(d, "b", "mod.cpp"),
          "#include <torch/extension.h>\nat::Tensor twice(const at::Tensor &x);\n"
          "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"twice\", &twice); }\n")
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "recproj"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/recproj"]

[tool.cuwheel.extension]
module = "recproj._C"
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


def cuwheel(d, *args):
    """(exit status, stdout, stderr, CPU seconds of cuwheel and its children)."""
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(d, "build"),
               CUWHEEL_DIST_DIR=os.path.join(d, "dist"))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([CUWHEEL, "-C", d] + list(args), capture_output=True, text=True,
                       env=env)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return p.returncode, p.stdout, p.stderr, cpu


def wheels(d):
    dist = os.path.join(d, "dist")
    out = {}
    for w in sorted(os.listdir(dist)) if os.path.isdir(dist) else []:
        with open(os.path.join(dist, w), "rb") as f:
            out[w] = hashlib.sha256(f.read()).hexdigest()
    return out


def scan_state(d):
    """(answers recorded by a build, objects kept by the proof) in build/scan."""
    scan = os.path.join(d, "build", "scan")
    names = os.listdir(scan) if os.path.isdir(scan) else []
    recorded = 0
    for n in names:
        if n.endswith(".scan"):
            with open(os.path.join(scan, n)) as f:
                recorded += f.read().split("\n")[1:2] == ["b"]
    return recorded, [n for n in names if n.endswith(".obj")]


def python_h_answers(d):
    """{name: mtime_ns} of the kept answers of the -E of Python.h (build/pyfree)."""
    pyfree = os.path.join(d, "build", "pyfree")
    names = os.listdir(pyfree) if os.path.isdir(pyfree) else []
    return {n: os.stat(os.path.join(pyfree, n)).st_mtime_ns for n in names
            if n.startswith("python-h-") and n.endswith(".answer")}


def main():
    if not os.access(PY, os.X_OK):
        print("skip: needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons)")
        return 77
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchrecord-")
    try:
        d = os.path.join(tmp, "proj")
        project(d)
        rc, out, err, cpu = cuwheel(d, "build", "--no-test", "--progress", "plain", "-j", "2")
        out += err
        nin = os.path.join(d, "build", "build.ninja")
        nin = open(nin).read() if os.path.exists(nin) else ""
        shared = [l for l in nin.splitlines()
                  if l.startswith("build shared/") and "b/op.cpp" in l]
        first = wheels(d)
        if not check(rc == 0 and len(first) == 1 and len(shared) == 1
                     and "ninja again" not in out,
                     "a cold build: one wheel, b/op.cpp compiled shared by ninja, one ninja "
                     "run (%.1f CPU-s; %s)" % (cpu, out.strip()[-1500:])):
            return 1
        recorded, objs = scan_state(d)
        check(recorded == 1 and not objs,
              "the build recorded its compile as the proof's answer in build/scan (%d "
              "answer(s), no object kept: %s)" % (recorded, objs))
        kept = python_h_answers(d)
        check(len(kept) == 1, "the build kept the answer of its -E of Python.h (%s)" % kept)
        rc, out, err, cpu = cuwheel(d, "plan", "--json")
        js = json.loads(out) if rc == 0 and out.lstrip().startswith("{") else {}
        srcs = {s["source"]: s for e in (js.get("torch_plan") or {}).get("exts", [])
                for s in e["srcs"]}
        _, objs = scan_state(d)
        check(srcs.get("b/op.cpp", {}).get("pyfree") == "proven" and not objs
              and cpu < MAX_CPU,
              "plan after the build: b/op.cpp proven, no compile run, %.2f CPU-s (%s; %s)"
              % (cpu, srcs.get("b/op.cpp"), objs or err.strip()[-800:]))
        rc, out, err, cpu = cuwheel(d, "build", "--no-test", "--progress", "plain", "-j", "2")
        out += err
        check(rc == 0 and "no work to do" in out and wheels(d) == first and cpu < MAX_CPU,
              "the build again: no step run, the same wheel, %.2f CPU-s (%s)"
              % (cpu, out.strip()[-800:]))
        check(kept and python_h_answers(d) == kept,
              "plan and the build again ran no -E of Python.h: its kept answer is untouched")
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s" % tmp)
    print("test_torch_record: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
