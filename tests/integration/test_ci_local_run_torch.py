"""Runs the Linux jobs of the workflow `cuwheel ci github SDIST --config FILE` writes for a torch
project, step by step on this machine (test_ci_local_run.py's runner), with no hand edit of the
workflow: only its index variables point at local stand-ins.

The project is examples/torchext packed as an sdist (torchext-0.1.0.tar.gz with a PKG-INFO, as a
release engineer gets one) and a config beside it (torchext.cuwheel.toml: the example's
[tool.cuwheel] tables, Pythons 3.12 and 3.13, CUDA 13.0, torch 2.11, archs 8.0). It is small on
purpose: gsplat, the issue's example, takes ~40 min of kernels on two cores
(tests/realproject/test_ci_local_run_gsplat.py runs it, `ctest -L realproject`).

The stand-ins:
- SDIST_INDEX: a file:// PEP 503 page holding the sdist, whose sha256 the workflow pins;
- PYPI_INDEX (torch 2.11's default build, CUDA 13.0, comes from PyPI: ci/torch_builds.def):
  a file:// PEP 503 index of the real torch 2.11.0 wheels and every dependency pip resolves for
  them, which the test downloads itself from PyPI into build/ci-wheelhouse/ (once; pip's cache
  is build/pip-cache; tests/integration/torch_wheelhouse.py). The workflow's torch step uses
  `--index-url`, so this index must serve the whole closure, and does.
cuwheel comes from its own wheel (tools/cuwheel-wheel) by digest. It passes when every Linux job
succeeds (the sdist fetched and checked, torch installed into the venvs the workflow names
through CUWHEEL_PYTHONS, kernels once, a wheel per Python built, audited and tested: pytest
from PyPI, as on a runner) and the index job publishes both cells under site/pt211cu130/."""
import glob
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ci_local_run as lr  # noqa: E402
import testskip  # noqa: E402
import torch_wheelhouse as twh  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TORCH = "2.11.0"
CUDA = "13.0"
PYTHONS = ["3.12", "3.13"]
EXAMPLE = os.path.join(ROOT, "examples", "torchext")

PKG_INFO = """Metadata-Version: 2.1
Name: torchext
Version: 0.1.0
Summary: Fused scaled_add and bias_gelu ops for PyTorch: CUDA kernels and a CPU path
Author-email: The cuwheel authors <cuwheel@example.org>
License: MIT
Classifier: Programming Language :: Python :: 3
Classifier: Environment :: GPU :: NVIDIA CUDA
Requires-Python: >=3.10
Description-Content-Type: text/markdown

"""

CONFIG = """# torchext from its sdist: examples/torchext/pyproject.toml's [tool.cuwheel] tables.
[tool.cuwheel]
packages = ["python/torchext"]

[tool.cuwheel.kernels]
sources = ["csrc/*.cu", "csrc/*.cpp"]
include-dirs = ["csrc"]
archs = "8.0"
uses-torch = "auto"

[tool.cuwheel.extension]
module = "torchext._C"
kind = "torch"
sources = ["binding/ops.cpp", "binding/square.cpp", "binding/scale.cu"]
include-dirs = ["csrc"]

[tool.cuwheel.matrix]
python = {pythons}
cuda = ["{cuda}"]
torch = ["{torch}"]

[tool.cuwheel.test]
requires = ["pytest"]
command = "python -m pytest -q -p no:cacheprovider {{project}}/tests"

[tool.cuwheel.ci]
cuwheel = {{url = "file://{wheel}", sha256 = "{digest}"}}
"""


def make_sdist(out_dir):
    """torchext-0.1.0.tar.gz of examples/torchext's tracked sources, with a PKG-INFO; the same
    bytes every time (sorted members, mtime 0, no owner), so its pinned sha256 is stable."""
    top = "torchext-0.1.0"
    files = subprocess.run(["git", "-C", EXAMPLE, "ls-files", "-z", "."], capture_output=True,
                           check=True).stdout.decode().split("\0")
    files = sorted(f for f in files if f and f != "setup-pythons")
    path = os.path.join(out_dir, f"{top}.tar.gz")
    readme = open(os.path.join(EXAMPLE, "README.md"), "rb").read()
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        def add(name, data):
            ti = tarfile.TarInfo(f"{top}/{name}")
            ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
            tar.addfile(ti, io.BytesIO(data))
        add("PKG-INFO", PKG_INFO.encode() + readme)
        for f in files:
            add(f, open(os.path.join(EXAMPLE, f), "rb").read())
    import gzip
    with open(path, "wb") as f:
        f.write(gzip.compress(raw.getvalue(), mtime=0))
    return path


def main():
    t0 = time.monotonic()
    yaml = lr.yaml_module()
    cache = os.environ.get("CUWHEEL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cuwheel")
    if not os.path.isdir(os.path.join(cache, "toolkits")) and \
            not os.path.exists("/usr/local/cuda-13.0/bin/nvcc"):
        testskip.skip("no CUDA 13 toolkit can be found or provisioned here")
    wheels = twh.wheelhouse(TORCH, lr.pyenv_pythons(PYTHONS))
    print(f"wheelhouse {wheels}: {len(os.listdir(wheels))} files "
          f"({time.monotonic() - t0:.0f} s)", flush=True)
    work = tempfile.mkdtemp(prefix="cuwheel-ci-local-torch-")
    keep = os.environ.get("KEEP_CI_LOCAL_RUN")
    try:
        sdist = make_sdist(work)
        sha = hashlib.sha256(open(sdist, "rb").read()).hexdigest()
        sindex = os.path.join(work, "sdist-index")
        twh.simple_index(sindex, {os.path.basename(sdist): sdist})
        windex = twh.index_of(os.path.join(work, "wheel-index"), wheels)
        cw, digest = lr.pack_cuwheel(work)
        repo = os.path.join(work, "repo")
        os.makedirs(os.path.join(repo, ".git"))
        cfg = os.path.join(repo, "torchext.cuwheel.toml")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(pythons=json.dumps(PYTHONS), cuda=CUDA,
                                  torch=TORCH.rsplit(".", 1)[0], wheel=cw, digest=digest))
        doc = lr.workflow_of_sdist(yaml, work, sdist, cfg,
                                   "cuwheel ci github SDIST --config writes the workflow")
        e = doc["env"]
        lr.check(e.get("SDIST_SHA256") == sha and e.get("SDIST_FILE") == os.path.basename(sdist),
                 "the workflow pins the sdist by its sha256", json.dumps(e, indent=1))
        venvs = [j["steps"] for j in doc["jobs"].values()]
        names = [s.get("env", {}).get("TORCH_VENVS", "") for st in venvs for s in st]
        lr.check(any(f"3.12 {TORCH} pypi" in n for n in names) and
                 any(f"3.13 {TORCH} pypi" in n for n in names),
                 f"the torch step names torch {TORCH} from PyPI (its CUDA {CUDA} build) per Python",
                 "\n".join(names))
        # The two indexes the jobs read, and only them, replaced by the local stand-ins.
        e.update(SDIST_INDEX=f"file://{sindex}", PYPI_INDEX=f"file://{windex}")
        runner = lr.Runner(doc, work)
        results = runner.run(repo)
        print(json.dumps(results, indent=1))
        lr.check_jobs(results)
        # The wheels job's build: each cell linked against its Python's torch venv, audited and
        # tested (the example's pytest run in a fresh venv), as its report.json records.
        wjob = [j for j in results if j.startswith("wheels-")]
        reps = glob.glob(os.path.join(runner.workspaces.get(wjob[0], "") if wjob else "", "**",
                                      "report.json"), recursive=True)
        rep = json.load(open(reps[0])) if reps else {}
        cells = {c["id"]: c for c in rep.get("cells", []) if c.get("result") == "ok"}
        ran = {(s.get("row"), s.get("name")) for s in rep.get("steps", [])}
        for v in PYTHONS:
            cid = f"cp{v.replace('.', '')}-pt211-cu130-linux_x86_64"
            c = cells.get(cid, {})
            lr.check(c and "torch-venvs" in c.get("interpreter", "") and
                     all((cid, s) in ran for s in ("audit", "test")),
                     f"{cid}: built with the workflow's torch venv, audited and tested",
                     json.dumps({"cell": c, "steps": sorted(x for x in ran if x[0] == cid)},
                                default=str)[:2000])
        n = len(PYTHONS)
        tag = f"pt{TORCH.rsplit('.', 1)[0].replace('.', '')}cu{CUDA.replace('.', '')}"
        lr.check_index(runner, n, tag)
        dist = runner.workspaces.get("index", "")
        got = sorted(os.listdir(os.path.join(dist, "dist"))) if dist else []
        want = [f"torchext-0.1.0+{tag}-cp{v.replace('.', '')}-cp{v.replace('.', '')}-"
                for v in PYTHONS]
        lr.check(len(got) == n and all(any(g.startswith(w) and "manylinux" in g for g in got)
                                       for w in want),
                 f"{n} manylinux torchext wheels +{tag} indexed", str(got))
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"test_ci_local_run_torch: {time.monotonic() - t0:.0f} s")
    if lr.failures:
        print(f"{len(lr.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_local_run_torch: all checks passed")


main()
