"""torchext_cells: examples/torchext's cells for one torch x CUDA, from their venvs to tested
wheels (the body of test_torch_ext_pt212 and tests/torch215/test_torch_ext_pt215, which differ
only in the torch, the CUDA, the Pythons and what each provisions first).

check_cells(name, torch, cuda, pythons, others) runs, with checks:
1. `examples/torchext/setup-pythons --torch TORCH`: one venv per Python under
   build/torch-pythons/ptXY/;
2. `cuwheel plan --json` with the matrix narrowed to TORCH and CUDA: each cell of PYTHONS is
   selected and buildable with its ptXY venv; others(cells) checks the cells it must not build;
3. `cuwheel build`: a wheel torchext-0.1.0+ptXYcuZW-cpV-cpV-manylinux_* per Python; `cuwheel
   audit` names torch as the provider of libc10, libtorch_cpu and libcudart.so.13; each
   METADATA has Requires-Dist: torch>=TORCH,<the next minor;
4. `cuwheel test --json`: every (wheel, Python) pair passes the example's pytest (CPU paths)."""
import json
import os
import subprocess
import zipfile

from checks import check, in_tmp, run

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
EXAMPLE = os.path.join(ROOT, "examples", "torchext")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def cell_id(python, torch, cuda):
    """The Linux cell id of examples/torchext for (Python, torch, CUDA), as `cuwheel plan`
    names it: cp312-pt212-cu130-linux_x86_64."""
    return "cp%s-pt%s-cu%s-linux_x86_64" % tuple(v.replace(".", "") for v in (python, torch, cuda))


def check_cells(name, torch, cuda, pythons, others):
    """Steps 1-4 above for the cells of PYTHONS x TORCH x CUDA; others(cells), given plan's
    cells by id, checks that no other cell is built. Returns the exit status (0, or 1 when a
    check failed)."""
    n = WORDS[len(pythons)]
    rc, out = run(["sh", os.path.join(EXAMPLE, "setup-pythons"), "--torch", torch])
    print(out.strip()[-3000:])
    if not check(rc == 0 and out.count(f"torch {torch}.0") == len(pythons),
                 f"setup-pythons --torch {torch} made the {n} venvs ({', '.join(pythons)})"):
        return 1

    def body(tmp):
        env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
                   CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"), CUWHEEL_MATRIX_TORCH=torch,
                   CUWHEEL_MATRIX_CUDA=cuda)
        build(tmp, env, torch, cuda, [cell_id(p, torch, cuda) for p in pythons], others)

    return in_tmp(name, body)


def build(tmp, env, torch, cuda, ids, others):
    pt = "pt" + torch.replace(".", "")
    local = pt + "cu" + cuda.replace(".", "")
    major, minor = torch.split(".")
    requires = f"Requires-Dist: torch>={torch},<{major}.{int(minor) + 1}"
    n = WORDS[len(ids)]
    rc, out = run([CUWHEEL, "plan", "--json"], cwd=EXAMPLE, env=env, stderr=subprocess.DEVNULL)
    plan = json.loads(out) if rc == 0 else {}
    cells = {c["id"]: c for c in plan.get("matrix", {}).get("cells", [])}
    for cid in ids:
        c = cells.get(cid, {})
        check(c.get("selected") and c.get("buildable") and
              f"/torch-pythons/{pt}/py3." in (c.get("interpreter") or ""),
              f"{cid} is built by its torch {torch} venv: {c.get('interpreter')} "
              f"{c.get('reason') or ''}")
    others(cells)

    rc, out = run([CUWHEEL, "build"], cwd=EXAMPLE, env=env)
    print(out[-5000:])
    check(rc == 0, f"cuwheel build of the torch {torch} cells exits 0")
    check(f"{len(ids)} built, 0 failed" in out, f"{len(ids)} built, 0 failed")
    dist = os.path.join(tmp, "dist")
    wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
    check(len(wheels) == len(ids), f"{n} wheels in dist/: {wheels}")
    for cid in ids:
        py = cid.split("-")[0]
        w = [x for x in wheels if x.startswith(f"torchext-0.1.0+{local}-{py}-{py}-manylinux")]
        if not check(len(w) == 1, f"a wheel torchext-0.1.0+{local}-{py}-{py}-manylinux_*"):
            continue
        rc, aout = run([CUWHEEL, "audit", os.path.join(dist, w[0])], env=env)
        check(rc == 0 and ": OK" in aout, f"cuwheel audit passes {w[0]}")
        for lib in ("libc10.so", "libtorch_cpu.so", "libcudart.so.13"):
            check(f"{lib} (torch)" in aout, f"{w[0]}: the audit names torch as the provider "
                  f"of {lib}")
        with zipfile.ZipFile(os.path.join(dist, w[0])) as z:
            meta = z.read([m for m in z.namelist()
                           if m.endswith(".dist-info/METADATA")][0]).decode()
        check(requires in meta, f"{w[0]} declares {requires}")

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
    check(rc == 0 and len(pairs) == len(ids) and all(p.get("result") == "pass" for p in pairs) and
          all(f"/torch-pythons/{pt}/" in (p.get("interpreter") or "") for p in pairs),
          f"cuwheel test: the {n} wheels pass the example's pytest with torch {torch}")
