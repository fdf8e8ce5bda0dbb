"""Runs the Linux jobs of the workflow `cuwheel ci github` writes for examples/torchstable (one
stable-ABI, abi3 torch wheel for every Python and torch of its axes) step by step on this machine
(test_ci_local_run.py's runner), with no hand edit of the workflow: only its PyPI index variable
points at a local stand-in.

The project is examples/torchstable's tracked files at examples/torchstable of a repository (its
[tool.cuwheel.pythons] table names venvs under the repository's build/, which a checkout does not
have, as on GitHub), with `[tool.cuwheel.ci] cuwheel = <the wheel tools/cuwheel-wheel packs>`.
Its axes are Pythons 3.12, 3.13 and torch 2.11, 2.12; both torches' default builds on PyPI are
CUDA 13.0 builds (ci/torch_builds.def), so the workflow installs both from PYPI_INDEX, which
here is a file:// PEP 503 index of the real torch wheels of each release the workflow pins and
every dependency pip resolves for them, downloaded once from PyPI into
build/ci-wheelhouse/torch-V/ (tests/integration/torch_wheelhouse.py; about 2.6 GB per release
and Python pair). pytest and numpy, which the example's tests import, come from PyPI as on a
runner.

It passes when every Linux job succeeds: the kernels once; the wheels job's one
torchstable-0.1.0+cu130-cp310-abi3 manylinux wheel built, audited and tested; each testpairs
matrix entry (at least 2 Pythons x 2 torches, every pair the config names) installing its own
torch and running the example's tests on that one wheel with it; and the index job publishing
the wheel (`1 of 1 cells published`, gated on the testpairs job). The index job is then run
again as if one pair had failed: it must not publish the wheel and must fail."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ci_local_run as lr  # noqa: E402
import testskip  # noqa: E402
import torch_wheelhouse as twh  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "torchstable")
SHARED = "torchstable-0.1.0+cu130-cp310-abi3-"


def make_repo(work, wheel, digest):
    """WORK/repo: a repository holding examples/torchstable's tracked files, configured to
    install cuwheel from WHEEL; returns (repo, project)."""
    repo = os.path.join(work, "repo")
    proj = os.path.join(repo, "examples", "torchstable")
    os.makedirs(os.path.join(repo, ".git"))
    files = subprocess.run(["git", "-C", EXAMPLE, "ls-files", "-z", "."], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in (f for f in files if f):
        os.makedirs(os.path.dirname(os.path.join(proj, f)), exist_ok=True)
        shutil.copy(os.path.join(EXAMPLE, f), os.path.join(proj, f))
    with open(os.path.join(proj, "pyproject.toml"), "a") as f:
        f.write(f'\n[tool.cuwheel.ci]\ncuwheel = {{url = "file://{wheel}", sha256 = "{digest}"}}\n')
    return repo, proj


def emit(yaml, work, proj):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL")}
    env["CUWHEEL_BUILD_DIR"] = os.path.join(work, "plan-build")
    wf = os.path.join(work, "wheels.yml")
    p = subprocess.run([lr.CUWHEEL, "-C", proj, "ci", "github", "-o", wf], env=env,
                       capture_output=True, text=True)
    if not lr.check(p.returncode == 0, "cuwheel ci github writes torchstable's workflow",
                    p.stderr):
        sys.exit(1)
    return yaml.safe_load(open(wf))


def pairs_of(doc):
    """(testpairs job id, its matrix entries, {(python, torch release)}) of the workflow."""
    tp = [j for j in doc["jobs"] if j.startswith("testpairs-")]
    if not lr.check(len(tp) == 1, f"one testpairs job: {tp}"):
        sys.exit(1)
    entries = doc["jobs"][tp[0]]["strategy"]["matrix"]["include"]
    pairs = set()
    for e in entries:
        lines = [ln.split() for ln in e["torch_venvs"].splitlines() if ln.strip()]
        lr.check(len(lines) == 1 and lines[0][0] == e["python"] and
                 lines[0][1].startswith(e["torch"] + ".") and lines[0][2] == "pypi",
                 f"testpairs entry {e['python']} x {e['torch']}: one torch from PyPI",
                 json.dumps(e))
        pairs.add((e["python"], lines[0][1]))
    return tp[0], entries, pairs


def check_pairs_ran(runner, tp, entries):
    """Each testpairs entry succeeded, installed its own torch (the release and CUDA 13.0 that
    `import torch` reports) and tested the one shared wheel with it."""
    for e in entries:
        label = f"{tp} (python={e['python']}, torch={e['torch']}, torch_venvs={e['torch_venvs']})"
        logs = runner.logs.get(label, [])
        rel = e["torch_venvs"].split()[1]
        torch_log = "".join(out for name, _, out in logs if name.startswith("torch for"))
        test_log = "".join(out for name, _, out in logs if name.startswith("The shared wheels"))
        lr.check(runner.entries.get(label) is True,
                 f"testpairs Python {e['python']} x torch {e['torch']}: success",
                 json.dumps(sorted(runner.entries), indent=1))
        lr.check(re.search(rf"/py{re.escape(e['python'])}-pt{re.escape(rel)}-pypi/\S*torch/"
                           rf"__init__\.py {re.escape(rel)}(\+\S+)? 13\.0", torch_log) is not None,
                 f"  its venv's torch is {rel} (CUDA 13.0) on Python {e['python']}", torch_log)
        lr.check(SHARED in test_log and re.search(r"\b(\d+) passed", test_log) is not None,
                 f"  {SHARED}... tested with it (pytest passed)", test_log[-3000:])


def rerun_index_failed_pair(runner, tp):
    """The index job again, as if one testpairs entry had failed: nothing published, job fails."""
    for a in ("site", "published-wheels"):
        shutil.rmtree(os.path.join(runner.artifacts, a), ignore_errors=True)
    runner.results[tp] = "failure"
    ok = runner.run_job("index", runner.doc["jobs"]["index"], {})
    summary = runner.summaries.get("index", "")
    # The summary is Markdown: its cells escape '_' (as cuwheel's ESC_MARKDOWN).
    why = tp.replace("_", "\\_") + ": failure"
    lr.check(not ok and "0 of 1 cells published" in summary and why in summary,
             "with a failed pair the index publishes nothing and fails", summary)


def main():
    t0 = time.monotonic()
    yaml = lr.yaml_module()
    cache = os.environ.get("CUWHEEL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cuwheel")
    if not os.path.isdir(os.path.join(cache, "toolkits")) and \
            not os.path.exists("/usr/local/cuda-13.0/bin/nvcc"):
        testskip.skip("no CUDA 13 toolkit can be found or provisioned here")
    work = tempfile.mkdtemp(prefix="cuwheel-ci-local-torchstable-")
    keep = os.environ.get("KEEP_CI_LOCAL_RUN")
    try:
        cw, digest = lr.pack_cuwheel(work)
        repo, proj = make_repo(work, cw, digest)
        doc = emit(yaml, work, proj)
        tp, entries, pairs = pairs_of(doc)
        pys = sorted({p for p, _ in pairs})
        torches = sorted({t for _, t in pairs})
        lr.check(len(pys) >= 2 and len(torches) >= 2 and len(pairs) == len(pys) * len(torches),
                 f"testpairs: every pair of Pythons {pys} x torches {torches}", str(pairs))
        wjobs = [j for j in doc["jobs"] if j.startswith("wheels-")]
        lr.check(len(wjobs) == 1 and doc["jobs"][wjobs[0]]["env"]["CELLS"].split() ==
                 ["cp310-abi3-cu130-linux_x86_64"], f"one wheels job building one cell: {wjobs}")
        pythons = lr.pyenv_pythons(pys)
        files = {}
        for t in torches:
            d = twh.wheelhouse(t, pythons)
            files.update({f: os.path.join(d, f) for f in os.listdir(d) if f.endswith(".whl")})
        print(f"wheelhouses: {len(files)} files for torch {torches} "
              f"({time.monotonic() - t0:.0f} s)", flush=True)
        windex = os.path.join(work, "wheel-index")
        twh.simple_index(windex, files)
        doc["env"]["PYPI_INDEX"] = f"file://{windex}"
        runner = lr.Runner(doc, work)
        results = runner.run(repo)
        print(json.dumps(results, indent=1))
        lr.check_jobs(results)
        art = os.path.join(runner.artifacts, wjobs[0])
        built = sorted(os.listdir(art)) if os.path.isdir(art) else []
        lr.check(len(built) == 1 and built[0].startswith(SHARED) and "manylinux" in built[0],
                 f"the wheels job built the one shared manylinux wheel {SHARED}...", str(built))
        check_pairs_ran(runner, tp, entries)
        lr.check_index(runner, 1, "cu130")
        dist = os.path.join(runner.workspaces.get("index", work), "examples", "torchstable",
                            "dist")
        got = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
        lr.check(got == built, f"the index publishes that wheel: {got}")
        rerun_index_failed_pair(runner, tp)
        print(f"pairs tested: {sorted(pairs)}")
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"test_ci_local_run_torchstable: {time.monotonic() - t0:.0f} s")
    if lr.failures:
        print(f"{len(lr.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_local_run_torchstable: all checks passed")


main()
