"""gsplat's tags (issue 15, point 5): examples/torchext's whole matrix in ONE `cuwheel build`:
torch 2.6 (PyPI's, built with CUDA 12.4) x CUDA 12.4 x Python 3.10-3.13 next to torch 2.11
(CUDA 13.0) x CUDA 13.0 x Python 3.12-3.13.

1. examples/torchext/setup-pythons makes the torch 2.11 venvs (build/torch-pythons/py3.1[23])
   and `setup-pythons --torch 2.6` the torch 2.6 ones (build/torch-pythons/pt26/py3.1[0-3]):
   torch from PyPI without its CUDA runtime packages but those `import torch` needs;
2. `cuwheel plan --json`: the six pt26-cu124 / pt211-cu130 cells are selected and buildable,
   each with the interpreter of its torch; the pt26-cu130 and pt211-cu124 cells are not
   selected, and their reason says "not paired" and names the CUDA torch was built for;
3. `cuwheel build` (tests on) makes six wheels: torchext-0.1.0+pt26cu124-cp31X-... for
   3.10-3.13 and +pt211cu130 for 3.12 and 3.13; the ninja log shows each .cu compiled once
   per toolkit (ops.cu: twice, one per CUDA), and kernels built with nvcc 12.4 and 13.0;
4. `cuwheel audit` passes each wheel and names torch as the provider of libc10, libtorch* and
   the CUDA runtime (libcudart.so.12 for pt26, .so.13 for pt211); each METADATA pins its torch;
5. the build's own test step installed each wheel into a fresh venv that sees the torch it was
   built against and ran the example's pytest there (CPU paths: no GPU here): the build
   reports 6 passed (wheel, Python) pairs, and `cuwheel test` run again says the same.

Needs CUDA 13.0 (/usr/local/cuda) and CUDA 12.4 (cuwheel provisions it from Debian's archive
when missing: `cuwheel toolkit install 12.4`), network to PyPI the first time (torch 2.6: about
2.8 GB a venv, four venvs). Exits 77 when a toolkit cannot be had. Minutes (label slow)."""
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
EXAMPLE = os.path.join(ROOT, "examples", "torchext")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
BUILT = {  # cell -> (torch pin, CUDA runtime soname torch provides)
    **{f"cp31{m}-pt26-cu124-linux_x86_64": ("torch>=2.6,<2.7", "libcudart.so.12")
       for m in "0123"},
    **{f"cp31{m}-pt211-cu130-linux_x86_64": ("torch>=2.11,<2.12", "libcudart.so.13")
       for m in "23"},
}
UNPAIRED = [f"cp31{m}-pt26-cu130-linux_x86_64" for m in "0123"] + \
           [f"cp31{m}-pt211-cu124-linux_x86_64" for m in "23"]


def main():
    if not os.access(CUWHEEL, os.X_OK):
        print("test_torch_ext_matrix: no cuwheel binary at %s" % CUWHEEL)
        return 1
    for args in ([], ["--torch", "2.6"]):
        rc, out = run(["sh", os.path.join(EXAMPLE, "setup-pythons")] + args)
        print(out.strip())
        if not check(rc == 0, "setup-pythons %s made its venvs" % " ".join(args)):
            return 1
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchext-matrix-")
    # The example's matrix also has torch 2.15 (CUDA 13.2, Python 3.11-3.14): that is
    # tests/torch215/test_torch_ext_pt215.py's (label torch215); this one keeps 2.6 and 2.11.
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"), CUWHEEL_MATRIX_TORCH="2.6,2.11",
               CUWHEEL_MATRIX_CUDA="12.4,13.0", CUWHEEL_MATRIX_PYTHON="3.10,3.11,3.12,3.13")
    try:
        rc, out = run([CUWHEEL, "toolkit", "install", "12.4"], env=env)
        if rc != 0:
            print(out[-2000:])
            return testskip.skip_code("CUDA 12.4 could not be provisioned from Debian's archive")
        rc, out = run([CUWHEEL, "plan", "--json"], cwd=EXAMPLE, env=env,
                      stderr=subprocess.DEVNULL)
        plan = json.loads(out) if rc == 0 else {}
        cells = {c["id"]: c for c in plan.get("matrix", {}).get("cells", [])}
        if not check(bool(cells), "cuwheel plan --json lists the cells"):
            print(out[-2000:])
            return 1
        for cid, (pin, _) in BUILT.items():
            c = cells.get(cid, {})
            torch = "2.6" if "-pt26-" in cid else "2.11"
            check(c.get("selected") and c.get("buildable") and
                  f"/torch-pythons/{'pt26/' if torch == '2.6' else ''}py3." in
                  (c.get("interpreter") or ""),
                  f"{cid} is built by the venv with torch {torch}: {c.get('interpreter')}")
        for cid in UNPAIRED:
            c = cells.get(cid, {})
            why = c.get("unselected_by") or ""
            torch_cuda = "12.4" if "-pt26-" in cid else "13.0"
            check(not c.get("selected") and why.startswith("not paired") and
                  f"built for CUDA {torch_cuda}" in why, f"{cid} is not paired: {why}")

        rc, out = run([CUWHEEL, "build"], cwd=EXAMPLE, env=env)
        print(out[-5000:])
        check(rc == 0, "cuwheel build of the whole torchext matrix exits 0")
        dist = os.path.join(tmp, "dist")
        wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
        check(len(wheels) == 6, "six wheels in dist/: %s" % wheels)
        for cid in BUILT:
            py, pt, cu = cid.split("-")[:3]
            check(any(w.startswith(f"torchext-0.1.0+{pt}{cu}-{py}-{py}-manylinux") for w in wheels),
                  f"a wheel torchext-0.1.0+{pt}{cu}-{py}-{py}-manylinux_*")
        check(not any("pt26cu130" in w or "pt211cu124" in w for w in wheels),
              "no pt26cu130 or pt211cu124 wheel")

        build = os.path.join(tmp, "build")
        log = [l.rstrip("\n").split("\t") for l in open(os.path.join(build, ".ninja_log"))
               if not l.startswith("#")]
        outs = [l[3] for l in log if len(l) > 3]
        for src in ("ops.cu.o", "square.cu.o"):
            ran = sorted(o for o in outs if o.endswith("/" + src))
            check(len(ran) == 2 and len({o.split("/")[1] for o in ran}) == 2,
                  f".ninja_log: {src[:-2]} compiled once per toolkit: {ran}")
        ninja = open(os.path.join(build, "build.ninja")).read()
        check("12.4.131" in ninja and "cuda-13.0" in ninja or "13.0" in ninja,
              "build.ninja runs nvcc of CUDA 12.4 and of CUDA 13.0")

        for w in wheels:
            cid = next((c for c in BUILT if w.startswith(
                "torchext-0.1.0+%s%s-%s-" % (c.split("-")[1], c.split("-")[2], c.split("-")[0]))),
                None)
            if not cid:
                continue
            pin, cudart = BUILT[cid]
            rc, aout = run([CUWHEEL, "audit", os.path.join(dist, w)], env=env)
            check(rc == 0 and ": OK" in aout, "cuwheel audit passes %s" % w)
            for lib in ("libc10.so", "libtorch_cpu.so", cudart):
                check(f"{lib} (torch)" in aout, f"{w}: the audit names torch as the provider "
                      f"of {lib}")
            with zipfile.ZipFile(os.path.join(dist, w)) as z:
                meta = z.read([n for n in z.namelist()
                               if n.endswith(".dist-info/METADATA")][0]).decode()
            check(f"Requires-Dist: {pin}" in meta, f"{w} declares Requires-Dist: {pin}")

        # The build's own test step ran; `cuwheel test` runs each (wheel, Python) again, in a
        # fresh venv each, with the interpreter of the wheel's torch.
        check(rc == 0 and "test" in out, "the build ran its test step")
        rc, tout = run([CUWHEEL, "test", "--json"], cwd=EXAMPLE, env=env,
                       stderr=subprocess.DEVNULL)
        try:
            res = json.loads(tout)
        except ValueError:
            print(tout[-3000:])
            res = {}
        pairs = res.get("results") or []
        for p in pairs:
            print("  %s  Python %s  %s  %s  %.1fs" % (p.get("filename"), p.get("python"),
                                                      p.get("interpreter"), p.get("result"),
                                                      p.get("seconds") or 0))
            pt26 = "+pt26cu124-" in (p.get("filename") or "")
            check(("/torch-pythons/pt26/" in (p.get("interpreter") or "")) == pt26,
                  "%s is tested with the venv of its torch" % p.get("filename"))
            out_tail = (p.get("output") or "").strip()
            print("    " + (out_tail[-2000:] if p.get("result") != "pass"
                            else out_tail.splitlines()[-1] if out_tail else "(no output)"))
        check(rc == 0 and len(pairs) == 6 and all(p.get("result") == "pass" for p in pairs),
              "cuwheel test: each of the six wheels passes the example's pytest with its torch")
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("test_torch_ext_matrix: kept %s" % tmp)
    print("test_torch_ext_matrix: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
