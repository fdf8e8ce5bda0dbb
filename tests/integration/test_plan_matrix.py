#!/usr/bin/env python3
"""test_plan_matrix.py: `cuwheel plan` expands the matrix right (issue 2, "Done when").

Proves, on fixture projects written to a temp dir, from `plan --json` and the table:
  - python 3.10-3.13 x cuda 11.8/12.4/12.6/13.0 x linux_x86_64/win_amd64 (kind capi) plans
    32 cells with the right ids and wheel names, and marks exactly the cells this machine
    cannot build, each with its reason (Windows runner; CUDA toolkit not found). The machine
    (and CI's) has CUDA 13.0 in /usr/local/cuda and pyenv Pythons 3.10-3.13; 11.8 and 12.4
    are not installed but provisionable from Debian's archive, 12.6 is on no source.
  - exclude then include (GitHub Actions order), build/skip globs, --only globs;
  - abi3 cells (cp310-abi3-... from requires-python >=3.10), torch cells (cp312-pt26-cu124-...,
    local +pt26cu124), the local-version template;
  - per-toolkit arch filtering that reports dropped archs with a reason.
Run by CTest as `python3 test_plan_matrix.py` with $CUWHEEL set; exits 1 on any failure.
"""
import json
import os
import subprocess
import sys
import tempfile

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/cuwheel"))
FAILURES = []
# The CUDA minors the toolkit lock provisions from Debian's archive, and the suite.
DEBIAN = {"11.8": "bookworm", "12.4": "trixie"}


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL: {what}")
    return cond


def eq(got, want, what):
    return check(got == want, f"{what}: got {got!r}, want {want!r}")


def project(root, name, tool, kind="capi", requires_python=">=3.10"):
    """Writes a small project (a kernel, a binding, a package) with the given matrix."""
    d = os.path.join(root, name)
    for sub in ("kern", "src", "pkg"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    with open(os.path.join(d, "kern", "k.cu"), "w") as f:
        f.write("__global__ void k(void) {}\n")
    with open(os.path.join(d, "src", "ext.c"), "w") as f:
        f.write("int demo_ext;\n")
    with open(os.path.join(d, "pkg", "__init__.py"), "w") as f:
        f.write("")
    rp = f'requires-python = "{requires_python}"\n' if requires_python else ""
    with open(os.path.join(d, "pyproject.toml"), "w") as f:
        f.write(f"""[project]
name = "demo"
version = "1.0"
{rp}
[tool.cuwheel]
packages = ["pkg"]

[tool.cuwheel.kernels]
sources = ["kern/*.cu"]
archs = "8.0;9.0"

[tool.cuwheel.extension]
module = "pkg._C"
kind = "{kind}"
sources = ["src/ext.c"]

{tool}
""")
    return d


def env(root):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("CUWHEEL_") and k not in ("CUDA_HOME", "CUDA_PATH")}
    e["NO_COLOR"] = "1"
    # Toolkits cuwheel provisioned itself live in its cache: keep them out of the plan.
    e["CUWHEEL_CACHE_DIR"] = os.path.join(root, "cache")
    return e


def plan(root, d, *args, code=0):
    p = subprocess.run([CUWHEEL, "-C", d, "plan", "--json", *args], capture_output=True,
                       text=True, env=env(root), timeout=600)
    if not check(p.returncode == code, f"{d} plan --json {' '.join(args)}: exit "
                 f"{p.returncode}, want {code}\n{p.stderr}"):
        return None
    return json.loads(p.stdout)["matrix"]  # the matrix as plan explains it


def table(root, d, *args):
    p = subprocess.run([CUWHEEL, "-C", d, "plan", *args], capture_output=True, text=True,
                       env=env(root), timeout=600)
    check(p.returncode == 0, f"{d} plan: exit {p.returncode}\n{p.stderr}")
    return p.stdout


PYS = ["3.10", "3.11", "3.12", "3.13"]
CUDAS = ["11.8", "12.4", "12.6", "13.0"]
PLATS = ["linux_x86_64", "win_amd64"]


def test_32_cells(root):
    d = project(root, "full", f"""[tool.cuwheel.matrix]
python = {json.dumps(PYS)}
cuda = {json.dumps(CUDAS)}
platform = {json.dumps(PLATS)}
""")
    j = plan(root, d)
    if not j:
        return
    cells = {c["id"]: c for c in j["cells"]}
    eq(len(j["cells"]), 32, "cells in the 4x4x2 matrix")
    eq(j["host_platform"], "linux_x86_64", "host platform")
    want_ids = set()
    for plat in PLATS:
        for cu in CUDAS:
            for py in PYS:
                cp = "cp" + py.replace(".", "")
                cid = f"{cp}-cu{cu.replace('.', '')}-{plat}"
                want_ids.add(cid)
                c = cells.get(cid)
                if not check(c is not None, f"cell {cid} planned"):
                    continue
                local = "cu" + cu.replace(".", "")
                eq(c["wheel"], f"demo-1.0+{local}-{cp}-{cp}-{plat}.whl", f"{cid} wheel")
                eq(c["local"], local, f"{cid} local label")
                eq(c["version"], f"1.0+{local}", f"{cid} version")
                eq((c["python"], c["cuda"], c["platform"], c["abi3"], c["torch"]),
                   (py, cu, plat, False, None), f"{cid} axes")
                eq(c["selected"], True, f"{cid} selected")
                if plat == "win_amd64":
                    eq(c["buildable"], False, f"{cid} buildable")
                    check(c["reason"] and "needs a Windows runner" in c["reason"],
                          f"{cid} reason names the Windows runner: {c['reason']!r}")
                elif cu in DEBIAN:
                    eq(c["buildable"], False, f"{cid} buildable")
                    eq(c["reason"], f"CUDA {cu} not installed: `cuwheel build` provisions it "
                       f"from Debian {DEBIAN[cu]} (cuwheel toolkit install {cu})",
                       f"{cid} reason")
                elif cu != "13.0":
                    eq(c["buildable"], False, f"{cid} buildable")
                    eq(c["reason"], f"CUDA {cu} toolkit not found on this machine",
                       f"{cid} reason")
                else:
                    eq(c["buildable"], True, f"{cid} buildable (CUDA 13.0, pyenv {py})")
                    eq(c["reason"], None, f"{cid} reason")
                    check(c["interpreter"] and os.path.exists(c["interpreter"]),
                          f"{cid} interpreter exists: {c['interpreter']!r}")
    eq(set(cells), want_ids, "cell ids")
    eq(j["selected"], 32, "selected")
    eq(j["buildable"], 4, "buildable cells")
    tk = {t["cuda"]: t for t in j["toolkits"]}
    eq(sorted(tk), sorted(CUDAS), "toolkits planned")
    eq([c for c in CUDAS if tk.get(c, {}).get("found")], ["13.0"], "toolkits found")
    eq(tk["13.0"]["targets"], ["sm_80", "sm_90"], "CUDA 13.0 targets")

    out = table(root, d)
    lines = out.splitlines()
    check("demo 1.0: 32 cells, 32 selected, 4 buildable" in out, "table summary line")
    for cid, c in cells.items():
        row = [l for l in lines if l.startswith(cid + " ")]
        if not check(len(row) == 1, f"table has one row for {cid}"):
            continue
        check(c["wheel"] in row[0], f"table row {cid} names {c['wheel']}")
        if c["buildable"]:
            check("build (Python" in row[0], f"table row {cid} says build: {row[0]}")
        else:
            check("cannot build here: " + c["reason"] in row[0],
                  f"table row {cid} gives the reason: {row[0]}")
    for cu in ("11.8", "12.4", "12.6"):
        check(f"CUDA {cu}" in out and "not on this machine" in out,
              f"table kernels section mentions CUDA {cu}")


def test_include_exclude(root):
    d = project(root, "incl", """[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13"]
cuda = ["12.4", "13.0"]
exclude = [{python = "3.13"}, {cuda = "12.4", python = "3.1[01]"}]
include = [{python = "3.13", cuda = "13.0"}, {python = "3.14", cuda = "13.0", platform = "win_amd64"}]
""")
    j = plan(root, d)
    if not j:
        return
    ids = [c["id"] for c in j["cells"]]
    eq(sorted(ids), sorted([
        "cp310-cu130-linux_x86_64", "cp311-cu130-linux_x86_64",
        "cp312-cu124-linux_x86_64", "cp312-cu130-linux_x86_64",
        "cp313-cu130-linux_x86_64",  # excluded by python = 3.13, added back by include
        "cp314-cu130-win_amd64",
    ]), "exclude removes, then include adds (GitHub Actions order)")


def test_build_skip_only(root):
    d = project(root, "sel", """[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13"]
cuda = ["12.4", "13.0"]
platform = ["linux_x86_64", "win_amd64"]
build = ["cp31[23]-*"]
skip = ["*-win_amd64"]
""")
    j = plan(root, d)
    if not j:
        return
    sel = sorted(c["id"] for c in j["cells"] if c["selected"])
    eq(sel, ["cp312-cu124-linux_x86_64", "cp312-cu130-linux_x86_64",
             "cp313-cu124-linux_x86_64", "cp313-cu130-linux_x86_64"], "build/skip selection")
    by = {c["id"]: c["unselected_by"] for c in j["cells"]}
    eq(by["cp310-cu130-linux_x86_64"], "not matched by build", "unselected by build")
    eq(by["cp312-cu130-win_amd64"], "skip = *-win_amd64", "unselected by skip")
    eq(len(j["cells"]), 16, "build/skip keep every cell in the plan")
    eq(j["selected"], 4, "selected count")
    eq(j["buildable"], 2, "buildable count (CUDA 13.0 only)")

    j = plan(root, d, "--only", "cp313-*", "--only", "cp312-cu130-linux_x86_64")
    if j:
        sel = sorted(c["id"] for c in j["cells"] if c["selected"])
        eq(sel, ["cp312-cu130-linux_x86_64", "cp313-cu124-linux_x86_64",
                 "cp313-cu130-linux_x86_64"], "--only globs within build/skip")
        by = {c["id"]: c["unselected_by"] for c in j["cells"]}
        eq(by["cp312-cu124-linux_x86_64"], "not named by --only", "unselected by --only")
    # --only does not override skip: a skipped cell stays unselected.
    j = plan(root, d, "--only", "*-win_amd64", code=3)
    p = subprocess.run([CUWHEEL, "-C", d, "plan", "--only", "cp39-*"], capture_output=True,
                       text=True, env=env(root))
    eq(p.returncode, 2, "--only naming no cell exits 2")
    check("'cp39-*' names no cell" in p.stderr, f"--only message: {p.stderr!r}")


def test_abi3(root):
    d = project(root, "abi3", """[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13"]
cuda = ["13.0"]
""", kind="abi3")
    j = plan(root, d)
    if j:
        eq([c["id"] for c in j["cells"]], ["cp310-abi3-cu130-linux_x86_64"],
           "abi3: one cell per toolkit from requires-python >=3.10")
        c = j["cells"][0]
        eq(c["wheel"], "demo-1.0+cu130-cp310-abi3-linux_x86_64.whl", "abi3 wheel")
        eq((c["python"], c["abi3"], c["python_tag"], c["abi_tag"]),
           ("3.10", True, "cp310", "abi3"), "abi3 cell fields")
        eq(c["buildable"], True, "abi3 cell buildable here")
    d = project(root, "abi3pp", """[tool.cuwheel.matrix]
python = ["3.11", "3.12"]
cuda = ["13.0"]
abi3-per-python = true
""", kind="abi3", requires_python=">=3.11")
    j = plan(root, d)
    if j:
        eq(sorted(c["id"] for c in j["cells"]),
           ["cp311-abi3-cu130-linux_x86_64", "cp311-cu130-linux_x86_64",
            "cp312-cu130-linux_x86_64"], "abi3-per-python adds per-Python cells")


def test_torch(root):
    d = project(root, "torch", """[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["12.4"]
torch = ["2.6"]
""", kind="torch")
    j = plan(root, d)
    if j:
        eq([c["id"] for c in j["cells"]], ["cp312-pt26-cu124-linux_x86_64"], "torch cell id")
        c = j["cells"][0]
        eq(c["local"], "pt26cu124", "torch local label")
        eq(c["wheel"], "demo-1.0+pt26cu124-cp312-cp312-linux_x86_64.whl", "torch wheel")
        eq(c["torch"], "2.6", "torch axis value")
        eq(c["buildable"], False, "torch cell without CUDA 12.4 here")
        eq(c["reason"], "CUDA 12.4 not installed: `cuwheel build` provisions it from Debian "
           "trixie (cuwheel toolkit install 12.4)", "torch cell reason")


def test_local_version(root):
    d = project(root, "local", """[tool.cuwheel.matrix]
python = ["3.12", "3.13"]
cuda = ["13.0"]
local-version = "cu{cuda_major}.py{python_nodot}"
""")
    j = plan(root, d)
    if j:
        got = {c["id"]: (c["local"], c["wheel"]) for c in j["cells"]}
        eq(got, {
            "cp312-cu130-linux_x86_64": ("cu13.py312",
                                         "demo-1.0+cu13.py312-cp312-cp312-linux_x86_64.whl"),
            "cp313-cu130-linux_x86_64": ("cu13.py313",
                                         "demo-1.0+cu13.py313-cp313-cp313-linux_x86_64.whl"),
        }, "local-version template fields")
    d = project(root, "nolocal", """[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
local-version = ""
""")
    j = plan(root, d)
    if j:
        c = j["cells"][0]
        eq((c["local"], c["version"], c["wheel"]),
           (None, "1.0", "demo-1.0-cp312-cp312-linux_x86_64.whl"), "empty template: no label")


def test_arch_filter(root):
    d = project(root, "archs", """[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0", "12.4"]
""")
    with open(os.path.join(d, "pyproject.toml")) as f:
        text = f.read().replace('archs = "8.0;9.0"', 'archs = "5.0;7.0;8.6;9.0a;12.0+PTX"')
    with open(os.path.join(d, "pyproject.toml"), "w") as f:
        f.write(text)
    j = plan(root, d)
    if not j:
        return
    tk = {t["cuda"]: t for t in j["toolkits"]}
    t = tk["13.0"]
    eq(t["targets"], ["sm_86", "sm_90a", "sm_120", "compute_120"], "CUDA 13.0 targets")
    dropped = {x["arch"]: x["reason"] for x in t["dropped"]}
    eq(sorted(dropped), ["sm_50", "sm_70"], "CUDA 13.0 drops sm_50 and sm_70")
    for a in ("sm_50", "sm_70"):
        check(dropped.get(a, "").startswith(f"CUDA 13.0") and f"cannot generate {a}" in
              dropped.get(a, ""), f"reason for {a}: {dropped.get(a)!r}")
    eq((tk["12.4"]["found"], tk["12.4"]["targets"], tk["12.4"]["dropped"]), (False, [], []),
       "a missing toolkit filters nothing here")
    out = table(root, d)
    check("dropped sm_50: CUDA 13.0" in out and "dropped sm_70: CUDA 13.0" in out,
          "table reports the dropped archs")


def main():
    with tempfile.TemporaryDirectory(prefix="cuwheel-plan-") as root:
        for t in (test_32_cells, test_include_exclude, test_build_skip_only, test_abi3,
                  test_torch, test_local_version, test_arch_filter):
            before = len(FAILURES)
            t(root)
            print(f"{'ok  ' if len(FAILURES) == before else 'FAIL'} {t.__name__}")
    if FAILURES:
        print(f"{len(FAILURES)} checks failed")
        return 1
    print("all plan checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
