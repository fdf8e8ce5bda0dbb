"""Torch-compatibility discovery (issue 31, item 3): [tool.cuwheel.test] torch-compat and
torch-requires = "tested", on real torches from PyPI.

1. examples/torchext/setup-pythons makes the venvs (torch without its CUDA runtime packages):
   torch 2.9 and 2.10 for Python 3.12 (PyPI's are CUDA 12.8 builds: the import and the CPU test
   run without a GPU), torch 2.12 for 3.12 and 3.13; torch 2.11's are the torch_pythons fixture's;
2. examples/torchext, Python 3.12 x torch 2.11 x CUDA 13.0, torch-compat 2.9, 2.10, 2.11, 2.12
   (CUWHEEL_TEST_TORCH_COMPAT) and torch-requires = "tested": the build passes (compat failures
   are rows, not a failed build); dist/ holds exactly one wheel; report.json's cell has a row
   per torch (2.11: a skip, "built against it"; the others ran: pass or fail, a failure with
   its first error line, no temp path in it); the summary prints the table; the placed wheel's
   Requires-Dist is the range recomputed here from the rows (the contiguous minors around 2.11
   that passed); the same table and range printed by the build;
3. examples/torchstable's sources built as an ORDINARY abi3 torch wheel (torch-abi line removed,
   torch axis 2.11) with torch-compat 2.10 and 2.12: every row of 2.12 passes (the op is
   registered through the stable ABI), so the wheel declares torch>=...,<2.13: a range wider
   than its own minor, recomputed from the rows; `cuwheel internal finish` run again on the
   packed wheel with the same compat.json into another dir gives the same bytes.

Needs CUDA 13.0 (/usr/local/cuda) and network to PyPI the first time (about 3.7 GB a torch 2.9
or 2.10 venv). Minutes (label torchmatrix)."""
import hashlib
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

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
SETUP = os.path.join(ROOT, "examples", "torchext", "setup-pythons")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
TP = os.path.join(ROOT, "build", "torch-pythons")


def venv(torch, py):
    sub = "" if torch == "2.11" else "pt" + torch.replace(".", "")
    return os.path.join(TP, sub, "py" + py, "bin", "python")


def proven(own, rows):
    """The range as the manual defines it, computed independently of cuwheel."""
    major, minor = map(int, own.split("."))

    def passed(m):
        mine = [r for r in rows if r["torch"] == "%d.%d" % (major, m)]
        return bool(mine) and all(r["result"] != "fail" for r in mine) and \
            any(r["result"] == "pass" for r in mine)
    lo = hi = minor
    while lo > 0 and passed(lo - 1):
        lo -= 1
    while passed(hi + 1):
        hi += 1
    return "torch>=%d.%d,<%d.%d" % (major, lo, major, hi + 1)


def requires_torch(wheel):
    with zipfile.ZipFile(wheel) as z:
        meta = z.read([n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0])
    return [l[len("Requires-Dist: "):] for l in meta.decode().splitlines()
            if l.startswith("Requires-Dist: torch")]


def build(project, tmp, env_extra):
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"), **env_extra)
    rc, out = run([CUWHEEL, "build", "--progress", "plain"], cwd=project, env=env)
    print(out[-6000:])
    dist = os.path.join(tmp, "dist")
    wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
    rep = {}
    try:
        rep = json.load(open(os.path.join(tmp, "build", "report.json")))
    except (OSError, ValueError):
        pass
    cells = [c for c in rep.get("cells", []) if c.get("wheel")]
    return rc, out, wheels, cells


def check_table(name, out, cell, own, torches):
    tc = cell.get("torch_compat") or {}
    rows = tc.get("rows") or []
    for r in rows:
        print("  %s torch %s Python %s: %s %s" % (name, r.get("torch"), r.get("python"),
                                                  r.get("result"), r.get("error") or
                                                  r.get("step") or ""))
    check(tc.get("torch") == own, f"{name}: built against torch {own}: {tc.get('torch')}")
    check(sorted({r["torch"] for r in rows}) == sorted(torches),
          f"{name}: a row for each listed torch: {[r['torch'] for r in rows]}")
    for r in rows:
        if r["torch"] == own:
            check(r["result"] == "skip" and "built against it" in (r.get("step") or ""),
                  f"{name}: torch {own} (its own) is the test step's: {r}")
            continue
        check(r["result"] in ("pass", "fail") and r.get("python") != "-",
              f"{name}: torch {r['torch']} ran (pass or fail) on Python {r.get('python')}")
        if r["result"] == "fail":
            err = r.get("error") or ""
            check(bool(err) and "/tmp/" not in err and "cuwheel-test-" not in err,
                  f"{name}: torch {r['torch']}'s failure has its first error line, no temp "
                  f"path: {err!r}")
            check(f"  {r['torch']}  " in out or f"  {r['torch']}   " in out,
                  f"{name}: the summary's table has torch {r['torch']}")
    want = proven(own, rows)
    check(tc.get("requirement") == want,
          f"{name}: report.json's requirement {tc.get('requirement')} is the range that "
          f"passed, {want}")
    check(f"proven: {want}" in out, f"{name}: the summary prints proven: {want}")
    return want


def main():
    if not os.access(CUWHEEL, os.X_OK):
        print("test_torch_compat: no cuwheel binary at %s" % CUWHEEL)
        return 1
    if not os.path.exists("/usr/local/cuda/bin/nvcc"):
        return testskip.skip_code("no CUDA 13.0 at /usr/local/cuda (nvcc)")
    for args in (["--torch", "2.9", "--pythons", "3.12"], ["--torch", "2.10", "--pythons", "3.12"],
                 ["--torch", "2.12"], []):
        rc, out = run(["sh", SETUP] + args)
        print(out.strip())
        if not check(rc == 0, "setup-pythons %s made its venvs" % " ".join(args)):
            return 1
    tmp = tempfile.mkdtemp(prefix="cuwheel-torch-compat-")
    try:
        # 2: examples/torchext, one cell, four torches listed.
        pythons = ";".join("3.12=" + venv(t, "3.12") for t in ("2.11", "2.9", "2.10", "2.12"))
        t1 = os.path.join(tmp, "torchext")
        rc, out, wheels, cells = build(
            os.path.join(ROOT, "examples", "torchext"), t1,
            dict(CUWHEEL_MATRIX_TORCH="2.11", CUWHEEL_MATRIX_PYTHON="3.12",
                 CUWHEEL_MATRIX_CUDA="13.0", CUWHEEL_PYTHONS=pythons,
                 CUWHEEL_TEST_TORCH_COMPAT="2.9,2.10,2.11,2.12",
                 CUWHEEL_TEST_TORCH_REQUIRES="tested"))
        check(rc == 0, "torchext: cuwheel build exits 0")
        check(len(wheels) == 1 and "+pt211cu130-cp312-cp312-manylinux" in wheels[0],
              f"torchext: dist/ holds the one final wheel: {wheels}")
        check("torch-compat (each wheel beside each listed torch" in out,
              "torchext: the summary has the torch-compat table")
        if cells and wheels:
            want = check_table("torchext", out, cells[0], "2.11", ["2.9", "2.10", "2.11", "2.12"])
            got = requires_torch(os.path.join(t1, "dist", wheels[0]))
            check(got == [want], f"torchext: the wheel's Requires-Dist is {want}: {got}")

        # 3: torchstable's stable-ABI op as an ordinary abi3 torch wheel: 2.12 loads it.
        proj = os.path.join(tmp, "torchstable-src")
        shutil.copytree(os.path.join(ROOT, "examples", "torchstable"), proj)
        pp = os.path.join(proj, "pyproject.toml")
        text = open(pp).read()
        text = re.sub(r'(?m)^torch-abi = "stable".*\n', "", text)
        text = re.sub(r'(?m)^torch = \[.*\]$', 'torch = ["2.11"]', text)
        text = text.replace("../../build/", ROOT + "/build/")
        text += '\ntorch-compat = ["2.10", "2.12"]\ntorch-requires = "tested"\n'
        assert "[tool.cuwheel.test]" in text.split("torch-compat")[0]
        open(pp, "w").write(text)
        pythons = ";".join(["3.12=" + venv(t, "3.12") for t in ("2.11", "2.10", "2.12")] +
                           ["3.13=" + venv(t, "3.13") for t in ("2.11", "2.12")])
        t2 = os.path.join(tmp, "ordinary")
        rc, out, wheels, cells = build(proj, t2, dict(CUWHEEL_PYTHONS=pythons))
        check(rc == 0, "torchstable as an ordinary abi3 wheel: cuwheel build exits 0")
        check(len(wheels) == 1 and "+pt211cu130-cp310-abi3-manylinux" in wheels[0],
              f"ordinary abi3: dist/ holds the one final wheel: {wheels}")
        if cells and wheels:
            want = check_table("ordinary abi3", out, cells[0], "2.11", ["2.10", "2.12"])
            rows = cells[0]["torch_compat"]["rows"]
            r212 = [r for r in rows if r["torch"] == "2.12"]
            check(len(r212) == 2 and all(r["result"] == "pass" for r in r212),
                  "ordinary abi3: torch 2.12 loads and passes the tests on Python 3.12 and 3.13")
            check(want.endswith(",<2.13"), f"ordinary abi3: the range reaches 2.12: {want}")
            placed = os.path.join(t2, "dist", wheels[0])
            got = requires_torch(placed)
            check(got == [want], f"ordinary abi3: the wheel's Requires-Dist is {want}: {got}")
            # The rewrite is a pure function of the packed wheel and compat.json.
            cid = cells[0]["id"]
            cdir = os.path.join(t2, "build", "cells", cid)
            packed = [f for f in os.listdir(cdir) if f.endswith(".whl")]
            again = os.path.join(tmp, "again")
            rc, fout = run([CUWHEEL, "internal", "finish", os.path.join(cdir, packed[0]),
                            "--dist", again, "--stamp", os.path.join(tmp, "again.stamp"),
                            "--declare", "torchstable",
                            "--torch-requires-from", os.path.join(cdir, "compat.json")],
                           cwd=proj)
            print(fout[-2000:])
            second = os.path.join(again, wheels[0])
            same = os.path.exists(second) and \
                hashlib.sha256(open(second, "rb").read()).hexdigest() == \
                hashlib.sha256(open(placed, "rb").read()).hexdigest()
            check(rc == 0 and same, "internal finish again with the same compat.json: the same "
                  "bytes as the placed wheel")
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("test_torch_compat: kept %s" % tmp)
    print("test_torch_compat: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
