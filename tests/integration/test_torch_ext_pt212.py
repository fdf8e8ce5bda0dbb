"""test_torch_ext_pt212: examples/torchext's torch 2.12 cells (issue 30): torch 2.12.0 from
PyPI (built with CUDA 13.0.2) x CUDA 13.0 x Python 3.12 and 3.13 in one `cuwheel build` beside
the example's 2.6/2.11/2.15 cells (narrowed here to torch 2.12), two `+pt212cu130` wheels, each
tested in a fresh venv that sees its torch.

1. `examples/torchext/setup-pythons --torch 2.12`: build/torch-pythons/pt212/py3.12, py3.13;
2. `cuwheel plan --json` with the matrix narrowed to torch 2.12 and CUDA 13.0: the two cells
   are selected and buildable, each with its pt212 venv;
3. `cuwheel build`: two wheels torchext-0.1.0+pt212cu130-cp31X-cp31X-manylinux_*; `cuwheel
   audit` names torch as the provider of libc10, libtorch_cpu and libcudart.so.13; each
   METADATA has Requires-Dist: torch>=2.12,<2.13;
4. `cuwheel test --json`: the two (wheel, Python) pairs pass the example's pytest (CPU paths).

Needs CUDA 13.0 (/usr/local/cuda) and network to PyPI the first time (two venvs of about
1.7 GB). Minutes (label torchmatrix); exits 77 without nvcc."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
EXAMPLE = os.path.join(ROOT, "examples", "torchext")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CELLS = [f"cp31{m}-pt212-cu130-linux_x86_64" for m in "23"]


def main():
    if not os.path.exists("/usr/local/cuda/bin/nvcc"):
        return testskip.skip_code("no CUDA 13.0 at /usr/local/cuda (nvcc)")
    rc, out = run(["sh", os.path.join(EXAMPLE, "setup-pythons"), "--torch", "2.12"])
    print(out.strip()[-3000:])
    if not check(rc == 0 and out.count("torch 2.12.0") == 2,
                 "setup-pythons --torch 2.12 made the two venvs (3.12, 3.13)"):
        return 1
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchext-pt212-")
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"), CUWHEEL_MATRIX_TORCH="2.12",
               CUWHEEL_MATRIX_CUDA="13.0")
    try:
        body(tmp, env)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"test_torch_ext_pt212: kept {tmp}")
    print("test_torch_ext_pt212: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


def body(tmp, env):
    rc, out = run([CUWHEEL, "plan", "--json"], cwd=EXAMPLE, env=env, stderr=subprocess.DEVNULL)
    plan = json.loads(out) if rc == 0 else {}
    cells = {c["id"]: c for c in plan.get("cells", [])}
    for cid in CELLS:
        c = cells.get(cid, {})
        check(c.get("selected") and c.get("buildable") and
              "/torch-pythons/pt212/py3." in (c.get("interpreter") or ""),
              f"{cid} is built by its torch 2.12 venv: {c.get('interpreter')} "
              f"{c.get('reason') or ''}")
    check(not any(c.get("selected") for i, c in cells.items() if "-pt212-" in i and i not in CELLS),
          "no other torch 2.12 cell is selected (3.10, 3.11, 3.14 are excluded)")

    rc, out = run([CUWHEEL, "build"], cwd=EXAMPLE, env=env)
    print(out[-5000:])
    check(rc == 0, "cuwheel build of the torch 2.12 cells exits 0")
    check("2 built, 0 failed" in out, "2 built, 0 failed")
    dist = os.path.join(tmp, "dist")
    wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
    check(len(wheels) == 2, f"two wheels in dist/: {wheels}")
    for cid in CELLS:
        py = cid.split("-")[0]
        w = [x for x in wheels if x.startswith(f"torchext-0.1.0+pt212cu130-{py}-{py}-manylinux")]
        if not check(len(w) == 1, f"a wheel torchext-0.1.0+pt212cu130-{py}-{py}-manylinux_*"):
            continue
        rc, aout = run([CUWHEEL, "audit", os.path.join(dist, w[0])], env=env)
        check(rc == 0 and ": OK" in aout, f"cuwheel audit passes {w[0]}")
        for lib in ("libc10.so", "libtorch_cpu.so", "libcudart.so.13"):
            check(f"{lib} (torch)" in aout, f"{w[0]}: the audit names torch as the provider "
                  f"of {lib}")
        with zipfile.ZipFile(os.path.join(dist, w[0])) as z:
            meta = z.read([n for n in z.namelist()
                           if n.endswith(".dist-info/METADATA")][0]).decode()
        check("Requires-Dist: torch>=2.12,<2.13" in meta,
              f"{w[0]} declares Requires-Dist: torch>=2.12,<2.13")

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
    check(rc == 0 and len(pairs) == 2 and all(p.get("result") == "pass" for p in pairs) and
          all("/torch-pythons/pt212/" in (p.get("interpreter") or "") for p in pairs),
          "cuwheel test: the two wheels pass the example's pytest with torch 2.12")


if __name__ == "__main__":
    sys.exit(main())
