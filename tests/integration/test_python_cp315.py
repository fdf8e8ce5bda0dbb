"""test_python_cp315: tinyraster (the repository's project) built and tested for CPython 3.15,
an interpreter this machine does not have: `cuwheel build` provisions it from Debian's archive
into a temporary cache on demand (as `cuwheel python install 3.15` would), builds the cp315
cell with CUDA 13.0, and tests the wheel in a fresh venv of that Python (numpy and pytest
cp315 wheels from PyPI). Then `cuwheel python list` shows the 3.15 the build installed.

Needs deb.debian.org and PyPI (or skips, 77), a CUDA 13.0 toolkit (not CI-installed: skips
without), and minutes (the kernels for seven architectures): label slow."""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures, run  # noqa: E402
from testskip import skip  # noqa: E402

CW = os.environ["CUWHEEL"]
SRC = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())


def main():
    for host in ("deb.debian.org", "pypi.org"):
        try:
            socket.create_connection((host, 80 if host.startswith("deb") else 443),
                                     timeout=10).close()
        except OSError:
            skip(f"{host} is not reachable")
    if not shutil.which("patchelf"):
        skip("no patchelf", ci_installs="patchelf")
    p = subprocess.run([CW, "doctor", "--json"], capture_output=True, text=True)
    try:
        tks = [f"{t['major']}.{t['minor']}" for t in json.loads(p.stdout)["toolkits"]]
    except (ValueError, KeyError):
        tks = []
    if "13.0" not in tks:
        skip("no CUDA 13.0 toolkit on this machine")
    tmp = tempfile.mkdtemp(prefix="cuwheel-cp315.")
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    proj = os.path.join(tmp, "proj")
    os.makedirs(proj)
    for f in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
        s = os.path.join(SRC, "examples", "tinyraster", f)
        (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(proj, f))
    for d in glob.glob(os.path.join(proj, "**", "__pycache__"), recursive=True):
        shutil.rmtree(d)
    env = dict(os.environ, CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"),
               CUWHEEL_MATRIX_PYTHON="3.15", CUWHEEL_MATRIX_CUDA="13.0")
    for k in ("CUWHEEL_DIST_DIR", "CUWHEEL_BUILD_DIR"):
        env.pop(k, None)
    rc, out = run([CW, "plan"], env=env, cwd=proj)
    check("Python 3.15 not installed: `cuwheel build` provisions it from Debian sid" in out,
          "plan: the cp315 cell is provisionable")
    t0 = time.time()
    rc, out = run([CW, "build", "--only", "cp315-cu130-*"], env=env, cwd=proj)
    took = time.time() - t0
    print(out[-3000:])
    check(rc == 0, f"build cp315-cu130 exits 0 ({took:.0f} s)")
    check("cuwheel: provisioning Python 3.15 (3.15." in out, "the build provisioned Python 3.15")
    wheels = glob.glob(os.path.join(proj, "dist", "tinyraster-*+cu130-cp315-cp315-*.whl"))
    check(len(wheels) == 1, f"one cp315 wheel: {wheels}")
    check("1 built, 0 failed" in out, "built and its tests passed")
    m = re.search(r"^report: (\S+report\.json)$", out, re.M)
    rep = m.group(1) if m else os.path.join(proj, "build", "cuwheel", "report.json")
    cells = [c for c in json.load(open(rep))["cells"] if c["id"].startswith("cp315-")] \
        if os.path.exists(rep) else []
    # report.json format 2 names the interpreter in "interpreter" (format 1: in "python").
    interp = cells[0].get("interpreter") or cells[0].get("python") or "" if cells else ""
    check(len(cells) == 1 and cells[0]["result"] == "ok" and
          interp.startswith(os.path.join(tmp, "cache", "pythons", "3.15.")),
          f"report.json: cp315 ok, built and tested by the provisioned interpreter: {cells}")
    rc, out = run([CW, "python", "list"], env=env)
    check(rc == 0 and "3.15." in out and "debian sid" in out, f"python list: {out.strip()}")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
