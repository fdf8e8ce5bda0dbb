#!/usr/bin/env python3
"""test_pack_win.py: `cuwheel pack` of Windows staged trees: a mingw-built .pyd stands in for
MSVC's (cp312: _C.cp312-win_amd64.pyd importing python312.dll; abi3: _C.pyd importing
python3.dll; the python DLLs are mingw-built stand-ins, not shipped). Each win_amd64 wheel
must pass `cuwheel audit` (PE rules, platform win_amd64), the PyPI zip rules, `twine check
--strict` and `check-wheel-contents`, and stay so after `cuwheel retag --no-local`. A .pyd that
imports cudart64_12.dll must fail the audit with the DLL load failure a user would see.
Exits 77 (skip) without mingw-w64."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import pypi_zip_check  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CC = "x86_64-w64-mingw32-gcc"
FAILS = []

PYPROJECT = """\
[project]
name = "demo-win"
version = "1.0.0"
description = "A Windows wheel packed on Linux"
readme = "README.md"
requires-python = ">=3.9"
license = "MIT"
license-files = ["LICENSE"]
authors = [{name = "Ann Dev", email = "ann@example.com"}]
classifiers = ["Programming Language :: Python :: 3", "Operating System :: Microsoft :: Windows"]
[tool.cuwheel]
packages = ["demo"]
[tool.cuwheel.extension]
module = "demo._C"
sources = ["src/ext.c"]
"""

# What the binding needs from Python, declared as MSVC's Python.h would (dllimport).
EXT = r"""
__declspec(dllimport) void *PyModule_Create2(void *def, int apiver);
static char moddef[104];
__declspec(dllexport) void *PyInit__C(void) { return PyModule_Create2(moddef, 1013); }
"""
EXT_CUDART = EXT + r"""
__declspec(dllimport) int cudaGetDeviceCount(int *n);
__declspec(dllexport) int count(void) { int n = 0; cudaGetDeviceCount(&n); return n; }
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        FAILS.append(f"{name}: {detail}")
    return cond


def venv_python():
    p = os.path.join(ROOT, "build", "venv", "bin", "python")
    if not os.path.exists(p):
        p = run([os.path.join(ROOT, "tools", "test-venv")], check=True).stdout.strip()
    return p


def build(work, name, src, link, out):
    c = os.path.join(work, name + ".c")
    with open(c, "w") as f:
        f.write(src)
    r = run([CC, "-shared", "-O2", "-s", "-o", out, c, *link])
    if r.returncode:
        sys.exit(f"FAIL: mingw: {r.stderr}")
    return out


def stage(work, tag, pyd_name, pyd):
    d = os.path.join(work, "stage-" + tag)
    os.makedirs(os.path.join(d, "demo"))
    with open(os.path.join(d, "demo", "__init__.py"), "w") as f:
        f.write("from ._C import *  # noqa\n")
    shutil.copy(pyd, os.path.join(d, "demo", pyd_name))
    return d


def audit(whl):
    r = run([CUWHEEL, "audit", "--json", whl])
    try:
        return r.returncode, json.loads(r.stdout)[0]
    except (ValueError, IndexError):
        return r.returncode, {"ok": False, "findings": [], "platform_tag": None,
                              "raw": r.stdout + r.stderr}


def validate(vpy, whl, label):
    rc, res = audit(whl)
    errs = [f["message"] for f in res["findings"] if f["level"] == "error"]
    check(f"{label}: cuwheel audit passes", rc == 0 and res["ok"], "; ".join(errs) or res)
    check(f"{label}: audit platform win_amd64", res.get("platform_tag") == "win_amd64",
          res.get("platform_tag"))
    probs = pypi_zip_check.check(whl)
    check(f"{label}: PyPI zip rules", not probs, "; ".join(probs))
    r = run([vpy, "-m", "twine", "check", "--strict", whl])
    check(f"{label}: twine check --strict", r.returncode == 0, r.stdout + r.stderr)
    r = run([vpy, "-m", "check_wheel_contents", whl])
    check(f"{label}: check-wheel-contents", r.returncode == 0, r.stdout + r.stderr)


def main():
    if not shutil.which(CC):
        print("SKIP: needs mingw-w64 (tools/install-deps installs it)")
        return 77
    vpy = venv_python()
    work = tempfile.mkdtemp(prefix="cuwheel-packwin-")
    try:
        proj = os.path.join(work, "proj")
        os.makedirs(os.path.join(proj, "src"))
        os.makedirs(os.path.join(proj, "demo"))
        open(os.path.join(proj, "demo", "__init__.py"), "w").close()
        with open(os.path.join(proj, "src", "ext.c"), "w") as f:
            f.write(EXT)
        for n, t in (("pyproject.toml", PYPROJECT), ("README.md", "# demo-win\n"),
                     ("LICENSE", "MIT License\n")):
            with open(os.path.join(proj, n), "w") as f:
                f.write(t)
        fake = "__declspec(dllexport) void *PyModule_Create2(void *d, int v) { return d; }\n"
        py312 = build(work, "py312", fake, [], os.path.join(work, "python312.dll"))
        py3 = build(work, "py3", fake, [], os.path.join(work, "python3.dll"))
        cudart = build(work, "cudart",
                       "__declspec(dllexport) int cudaGetDeviceCount(int *n) { *n = 0; "
                       "return 0; }\n", [], os.path.join(work, "cudart64_12.dll"))
        dist = os.path.join(work, "dist")
        cases = [("cp312-cp312-win_amd64", "_C.cp312-win_amd64.pyd",
                  build(work, "c312", EXT, [py312], os.path.join(work, "c312.pyd"))),
                 ("cp39-abi3-win_amd64", "_C.pyd",
                  build(work, "abi3", EXT, [py3], os.path.join(work, "abi3.pyd")))]
        for tag, name, pyd in cases:
            r = run([CUWHEEL, "-C", proj, "pack", stage(work, tag, name, pyd), "--tag", tag,
                     "--local", "cu130", "-o", dist])
            if not check(f"pack {tag}", r.returncode == 0, r.stderr):
                continue
            whl = r.stdout.strip().splitlines()[-1]
            check(f"{tag}: wheel name", os.path.basename(whl) ==
                  f"demo_win-1.0.0+cu130-{tag}.whl", whl)
            validate(vpy, whl, tag)
            r = run([CUWHEEL, "retag", whl, "--no-local", "-o", os.path.join(work, "retag")])
            if check(f"retag {tag} --no-local", r.returncode == 0, r.stderr):
                validate(vpy, r.stdout.strip().splitlines()[-1], "retagged " + tag)
        # The seed-reported failure: a .pyd needing the CUDA runtime DLL nobody ships.
        bad = build(work, "bad", EXT_CUDART, [py312, cudart], os.path.join(work, "bad.pyd"))
        tag = "cp312-cp312-win_amd64"
        r = run([CUWHEEL, "-C", proj, "pack", stage(work, "bad", "_C.cp312-win_amd64.pyd", bad),
                 "--tag", tag, "-o", os.path.join(work, "bad-dist")])
        if check("pack the cudart .pyd", r.returncode == 0, r.stderr):
            rc, res = audit(r.stdout.strip().splitlines()[-1])
            msgs = [f["message"] for f in res["findings"] if f["level"] == "error"]
            want = "ImportError: DLL load failed while importing _C: The specified module " \
                   "could not be found."
            check("audit fails on cudart64_12.dll", rc != 0 and any(
                "cudart64_12.dll" in m and want in m for m in msgs), msgs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("FAILED:\n  " + "\n  ".join(FAILS))
        return 1
    print("PASS: win_amd64 wheels packed on Linux pass the audit and the validators")
    return 0


if __name__ == "__main__":
    sys.exit(main())
