"""test_torch_ext_pt215: examples/torchext's torch 2.15 cells (issue 30): torch 2.15.0 from
PyPI (built with CUDA 13.2) x CUDA 13.2 x Python 3.11-3.14 in one `cuwheel build`, four
`+pt215cu132` wheels, each tested in a fresh venv that sees its torch.

1. `cuwheel python install 3.14` (this machine has no 3.14: CPython from Debian's packages,
   docs/manual/pythons.md) and `cuwheel toolkit install 13.2` (CUDA 13.2 from PyPI);
2. `examples/torchext/setup-pythons --torch 2.15`: build/torch-pythons/pt215/py3.11 ... py3.14,
   the 3.14 one from the interpreter step 1 provisioned (torch 2.15 requires Python >= 3.11:
   PyPI has no cp310 wheel of it, so there is no cp310-pt215 cell);
3. `cuwheel plan --json` with the matrix narrowed to torch 2.15 and CUDA 13.2: the four cells
   are selected and buildable, each with its pt215 venv;
4. `cuwheel build`: four wheels torchext-0.1.0+pt215cu132-cp31X-cp31X-manylinux_*; `cuwheel
   audit` names torch as the provider of libc10, libtorch_cpu and libcudart.so.13; each
   METADATA has Requires-Dist: torch>=2.15,<2.16;
5. `cuwheel test --json`: the four (wheel, Python) pairs pass the example's pytest (CPU paths).

Long (four venvs of about 1.7 GB, 540 MB of torch wheel each from PyPI the first time; the
binding compiled per Python): not in ci/test. Run it with
    cmake --preset ci -DCUWHEEL_TORCH215_TESTS=ON && (cd build/ci && ctest -L torch215 -V)
Exits 77 without network to PyPI and Debian's archive."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from checks import check, run, failures  # noqa: E402
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
EXAMPLE = os.path.join(ROOT, "examples", "torchext")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CELLS = [f"cp31{m}-pt215-cu132-linux_x86_64" for m in "1234"]


def main():
    for host, port in (("pypi.org", 443), ("deb.debian.org", 80)):
        try:
            socket.create_connection((host, port), timeout=10).close()
        except OSError:
            return testskip.skip_code(f"{host} is not reachable")
    for args in (["python", "install", "3.14"], ["toolkit", "install", "13.2"]):
        rc, out = run([CUWHEEL] + args)
        print(out.strip()[-2000:])
        if not check(rc == 0, "cuwheel " + " ".join(args)):
            return 1
    rc, out = run(["sh", os.path.join(EXAMPLE, "setup-pythons"), "--torch", "2.15"])
    print(out.strip()[-3000:])
    if not check(rc == 0 and out.count("torch 2.15.0") == 4,
                 "setup-pythons --torch 2.15 made the four venvs (3.11-3.14)"):
        return 1
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchext-pt215-")
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"), CUWHEEL_MATRIX_TORCH="2.15",
               CUWHEEL_MATRIX_CUDA="13.2")
    try:
        body(tmp, env)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"test_torch_ext_pt215: kept {tmp}")
    print("test_torch_ext_pt215: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


def body(tmp, env):
    rc, out = run([CUWHEEL, "plan", "--json"], cwd=EXAMPLE, env=env, stderr=subprocess.DEVNULL)
    plan = json.loads(out) if rc == 0 else {}
    cells = {c["id"]: c for c in plan.get("cells", [])}
    for cid in CELLS:
        c = cells.get(cid, {})
        check(c.get("selected") and c.get("buildable") and
              "/torch-pythons/pt215/py3." in (c.get("interpreter") or ""),
              f"{cid} is built by its torch 2.15 venv: {c.get('interpreter')} "
              f"{c.get('reason') or ''}")
    check("cp310-pt215-cu132-linux_x86_64" not in cells, "no cp310 cell (torch 2.15 needs 3.11)")

    rc, out = run([CUWHEEL, "build"], cwd=EXAMPLE, env=env)
    print(out[-5000:])
    check(rc == 0, "cuwheel build of the torch 2.15 cells exits 0")
    check("4 built, 0 failed" in out, "4 built, 0 failed")
    dist = os.path.join(tmp, "dist")
    wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
    check(len(wheels) == 4, f"four wheels in dist/: {wheels}")
    for cid in CELLS:
        py = cid.split("-")[0]
        w = [x for x in wheels if x.startswith(f"torchext-0.1.0+pt215cu132-{py}-{py}-manylinux")]
        if not check(len(w) == 1, f"a wheel torchext-0.1.0+pt215cu132-{py}-{py}-manylinux_*"):
            continue
        rc, aout = run([CUWHEEL, "audit", os.path.join(dist, w[0])], env=env)
        check(rc == 0 and ": OK" in aout, f"cuwheel audit passes {w[0]}")
        for lib in ("libc10.so", "libtorch_cpu.so", "libcudart.so.13"):
            check(f"{lib} (torch)" in aout, f"{w[0]}: the audit names torch as the provider "
                  f"of {lib}")
        with zipfile.ZipFile(os.path.join(dist, w[0])) as z:
            meta = z.read([n for n in z.namelist()
                           if n.endswith(".dist-info/METADATA")][0]).decode()
        check("Requires-Dist: torch>=2.15,<2.16" in meta,
              f"{w[0]} declares Requires-Dist: torch>=2.15,<2.16")

    rc, tout = run([CUWHEEL, "test", "--json"], cwd=EXAMPLE, env=env, stderr=subprocess.DEVNULL)
    try:
        pairs = json.loads(tout).get("results") or []
    except ValueError:
        print(tout[-3000:])
        pairs = []
    for p in pairs:
        print("  %s  Python %s  %s  %s  %.1fs" % (p.get("filename"), p.get("python"),
                                                  p.get("interpreter"), p.get("result"),
                                                  p.get("seconds") or 0))
        if p.get("result") != "pass":
            print((p.get("output") or "")[-2000:])
    check(rc == 0 and len(pairs) == 4 and all(p.get("result") == "pass" for p in pairs) and
          all("/torch-pythons/pt215/" in (p.get("interpreter") or "") for p in pairs),
          "cuwheel test: the four wheels pass the example's pytest with torch 2.15")


if __name__ == "__main__":
    sys.exit(main())
