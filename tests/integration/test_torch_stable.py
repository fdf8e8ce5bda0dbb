"""Fewer wheels: examples/torchstable (an op registered with torch's stable ABI, a limited-API
module) end to end, and the refusals that keep such wheels honest:

1. the torch 2.11 venvs (the setup.torch_pythons fixture) and torch 2.12 venvs
   (`setup-pythons --torch 2.12`) for Python 3.12 and 3.13;
2. `cuwheel plan --json`: ONE cell for torch 2.11 + 2.12 x Python 3.12 + 3.13 x CUDA 13.0,
   cp310-abi3-cu130, built with torch 2.11 (the oldest); without torch-abi the same config plans
   one abi3 wheel per torch (+pt211cu130, +pt212cu130);
3. `cuwheel build`: the commands carry -DPy_LIMITED_API=0x030A0000 and
   -DTORCH_TARGET_VERSION=0x020b000000000000 and no -ltorch_python; the wheel declares
   torch>=2.11 (no upper bound), its module imports one CPython symbol of the limited API and no
   torch C++ symbol; the one wheel is tested in all four (Python, torch) combinations;
4. the same project with a C++ torch call (c10::detail::torchCheckFail) fails its audit with
   torch-unstable-abi naming the symbol, and with a CPython call outside the limited API
   (_PyObject_GetDictPtr) fails with limited-api; dist/ stays empty both times.

Needs CUDA 13.0 (cuwheel doctor finds it) and PyPI the first time (about 1.9 GB per torch 2.12
venv; later runs reuse build/torch-pythons and build/pip-cache). Run from the repository root
with $CUWHEEL set (CTest does both)."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
import testskip  # noqa: E402

ROOT = os.getcwd()
EXAMPLE = os.path.join(ROOT, "examples", "torchstable")
SETUP = os.path.join(ROOT, "examples", "torchext", "setup-pythons")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENVS = {(v, t): os.path.join(ROOT, "build", "torch-pythons", d, "py" + v, "bin", "python")
         for v in ("3.12", "3.13") for t, d in (("2.11", ""), ("2.12", "pt212"))}
CELL = "cp310-abi3-cu130-linux_x86_64"


def pyenv(v):
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{v}.*/bin/python3")))
    return found[-1] if found else shutil.which(f"python{v}")


def step_setup():
    pys = [pyenv(v) for v in ("3.12", "3.13")]
    if not all(pys):
        testskip.skip("needs Python 3.12 and 3.13 (pyenv)", ci_installs=None)
    rc, out = run(["sh", SETUP, "--torch", "2.12"] + pys)
    print(out.strip()[-2000:])
    missing = [p for p in VENVS.values() if not os.path.exists(p)]
    if rc != 0 and ("Could not find" in out or "NewConnectionError" in out):
        testskip.skip("PyPI is not reachable: torch 2.12 cannot be installed", ci_installs=None)
    check(rc == 0 and not missing, f"the torch 2.11 and 2.12 venvs exist (missing: {missing})")
    return not missing


def copy_example(tmp, name):
    d = os.path.join(tmp, name)
    shutil.copytree(EXAMPLE, d, ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
    # The pythons table is relative to the example's directory: point it at this checkout.
    p = os.path.join(d, "pyproject.toml")
    text = open(p).read().replace('"../../build/', f'"{ROOT}/build/')
    open(p, "w").write(text)
    return d


def plan(d, *extra):
    rc, out = run([CUWHEEL, "plan", "--json", *extra], cwd=d, stderr=subprocess.DEVNULL)
    return rc, json.loads(out)["matrix"] if rc in (0, 3) and out.strip().startswith("{") else {}


def step_plan(tmp):
    d = copy_example(tmp, "plan")
    rc, p = plan(d)
    cells = p.get("cells", [])
    check(rc == 0 and [c.get("id") for c in cells] == [CELL],
          f"stable ABI + abi3: one cell for 2 Pythons x 2 torches ({[c.get('id') for c in cells]})")
    if cells:
        c = cells[0]
        check(c.get("wheel", "").startswith("torchstable-0.1.0+cu130-cp310-abi3-"),
              f"its wheel has no torch in the label: {c.get('wheel')}")
        check(c.get("torch") == "2.11", f"it is built with the oldest torch: {c.get('torch')}")
    p2 = os.path.join(d, "pyproject.toml")
    text = open(p2).read().replace('torch-abi = "stable"', "")
    open(p2, "w").write(text)
    rc, p = plan(d)
    ids = sorted(c.get("id") for c in p.get("cells", []))
    check(ids == ["cp310-abi3-pt211-cu130-linux_x86_64", "cp310-abi3-pt212-cu130-linux_x86_64"],
          f"abi3 alone: one abi3 wheel per torch ({ids})")


def build(d):
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(d, "build"),
               CUWHEEL_DIST_DIR=os.path.join(d, "dist"))
    rc, out = run([CUWHEEL, "build", "-j", "2"], cwd=d, env=env)
    dist = os.path.join(d, "dist")
    wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
    return rc, out, wheels


def step_build(tmp):
    d = copy_example(tmp, "good")
    rc, out, wheels = build(d)
    print(out[-2500:])
    check(rc == 0 and len(wheels) == 1, f"cuwheel build exits 0 with one wheel ({wheels})")
    text = open(os.path.join(d, "build", "build.ninja")).read()
    check("-DPy_LIMITED_API=0x030A0000" in text, "the commands define Py_LIMITED_API=0x030A0000")
    check("-DTORCH_TARGET_VERSION=0x020b000000000000" in text,
          "the commands target torch 2.11's stable ABI (TORCH_TARGET_VERSION)")
    check("-ltorch_python" not in text, "nothing links libtorch_python")
    check(" --torch-stable" in text, "the audit step checks the stable ABI")
    if not wheels:
        return
    whl = os.path.join(d, "dist", wheels[0])
    with zipfile.ZipFile(whl) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
        mods = [n for n in z.namelist() if n.endswith(".so")]
        check(mods == ["torchstable/_C.abi3.so"], f"one stable-ABI module: {mods}")
        so = os.path.join(tmp, "_C.abi3.so")
        open(so, "wb").write(z.read(mods[0]))
    reqs = re.findall(r"^Requires-Dist: (.*)$", meta, re.M)
    check(reqs == ["torch>=2.11"], f"Requires-Dist names torch>=2.11 and no upper bound: {reqs}")
    rc, nm = run(["nm", "-D", "--undefined-only", so])
    syms = [line.split()[-1] for line in nm.splitlines() if line.strip()]
    py = sorted(s for s in syms if s.startswith("Py") or s.startswith("_Py"))
    check(py == ["PyModule_Create2"], f"the only CPython symbol is PyModule_Create2: {py}")
    torch_cxx = [s for s in syms if re.match(r"_ZN?K?\d*(3c10|2at|5torch)", s)]
    check(not torch_cxx, f"no torch C++ symbol: {torch_cxx[:5]}")
    check(any(s.startswith("aoti_torch_") for s in syms), "it calls torch's stable C shim")
    # The one wheel against every (Python, torch) of the axis.
    rc, out = run([CUWHEEL, "test", "--json", whl], cwd=d, stderr=subprocess.DEVNULL)
    jobs = json.loads(out).get("results", []) if out.strip().startswith("{") else []
    seen = sorted((j.get("python"), j.get("result")) for j in jobs)
    check(rc == 0 and seen == [("3.12-torch2.11", "pass"), ("3.12-torch2.12", "pass"),
                               ("3.13-torch2.11", "pass"), ("3.13-torch2.12", "pass")],
          f"the wheel passes its tests with Python 3.12/3.13 x torch 2.11/2.12: {seen}")


def step_refusals(tmp):
    d = copy_example(tmp, "cxx")
    # torch's own headers refuse c10/core/*.h under TORCH_TARGET_VERSION, so the C++ API is
    # reached as older or hand-written code would: a declaration of c10's check-failure hook.
    with open(os.path.join(d, "csrc", "ops.cpp"), "a") as f:
        f.write('\n#include <string>\nnamespace c10 { namespace detail {\n'
                '[[noreturn]] void torchCheckFail(const char *, const char *, uint32_t,\n'
                '                                 const std::string &);\n} }\n'
                'extern "C" void torchstable_unstable(void) {\n'
                '\tc10::detail::torchCheckFail("f", "ops.cpp", 1, std::string("no"));\n}\n')
    rc, out, wheels = build(d)
    check(rc == 1 and not wheels, f"a c10 C++ call: the build fails, dist/ empty ({wheels})")
    check("torch-unstable-abi" in out or "torch's C++ API" in out,
          "the audit names the unstable symbol (torch-unstable-abi)")
    check(re.search(r"_ZN3c106detail14torchCheckFail\w*", out) is not None,
          "the message names c10::detail::torchCheckFail's symbol")

    d = copy_example(tmp, "private")
    with open(os.path.join(d, "csrc", "module.c"), "a") as f:
        f.write("\nPyObject **_PyObject_GetDictPtr(PyObject *);\n"
                "PyObject **torchstable_dict(PyObject *o) { return _PyObject_GetDictPtr(o); }\n")
    rc, out, wheels = build(d)
    check(rc == 1 and not wheels, f"_PyObject_GetDictPtr: the build fails, dist/ empty ({wheels})")
    check("_PyObject_GetDictPtr, which is not part of CPython's limited API" in out,
          "the audit names _PyObject_GetDictPtr (limited-api)")


def main():
    if not os.path.exists(CUWHEEL):
        print(f"SKIP: no cuwheel at {CUWHEEL}")
        sys.exit(77)
    if not step_setup():
        sys.exit(1)
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchstable-")
    try:
        step_plan(tmp)
        step_build(tmp)
        step_refusals(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
