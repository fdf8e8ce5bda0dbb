"""The workflow `cuwheel ci github SDIST --config FILE` writes for gsplat 1.5.3 (examples/gsplat,
the sdist from PyPI), its Linux jobs run step by step on this machine (tests/integration/
test_ci_local_run.py's runner). Long: gsplat's 28 kernel sources take ~40 min on two cores, so
it is a realproject test, off by default (tests/integration/test_ci_local_run_torch.py runs the
same workflow shape for examples/torchext in every tools/test run):

    cmake --preset ci -DCUWHEEL_REALPROJECT_TESTS=ON && cmake --build build/ci
    cd build/ci && ctest -R realproject.gsplat_ci_local_run --output-on-failure

The stand-ins: SDIST_INDEX a file:// PEP 503 page holding gsplat-1.5.3.tar.gz (its sha256 is
the one the workflow pins; tests/integration/test_ci_sdist.py's finder, PyPI when not cached);
PYPI_INDEX (torch 2.11's default build, CUDA 13.0, is PyPI's) a file:// index of the real torch
2.11.0 wheels and their dependencies, downloaded from PyPI once into build/ci-wheelhouse/
(tests/integration/torch_wheelhouse.py). The config is examples/gsplat's with the Pythons of
GSPLAT_PYTHONS (default "3.12"), CUDA 13.0, torch 2.11, archs "8.0"; cuwheel comes from its own
wheel (tools/cuwheel-wheel) by digest. It passes when every Linux job succeeds and the index job's
summary says every cell was published."""
import json
import os
import re
import shutil
import sys
import tempfile

INTEGRATION = os.path.join(os.getcwd(), "tests", "integration")
sys.path.insert(0, INTEGRATION)
import test_ci_local_run as lr  # noqa: E402
import torch_wheelhouse as twh  # noqa: E402

ROOT = os.getcwd()
SDIST = "gsplat-1.5.3.tar.gz"
SHA256 = "343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906"


def main():
    yaml = lr.yaml_module()
    minor, cuda, release = "2.11", "13.0", "2.11.0"
    pythons = os.environ.get("GSPLAT_PYTHONS", "3.12").split()
    wheels_dir = twh.wheelhouse(release, lr.pyenv_pythons(pythons))
    import test_ci_sdist  # noqa: E402  (its sdist finder; exits 77 without the sdist)
    work = tempfile.mkdtemp(prefix="cuwheel-ci-local-torch-")
    try:
        sdist = test_ci_sdist.find_sdist(work)
        sindex = os.path.join(work, "sdist-index")
        twh.simple_index(sindex, {SDIST: sdist})
        windex = twh.index_of(os.path.join(work, "wheel-index"), wheels_dir)
        cw, digest = lr.pack_cuwheel(work)
        repo = os.path.join(work, "repo")
        os.makedirs(os.path.join(repo, ".git"))
        with open(os.path.join(ROOT, "examples", "gsplat", "gsplat.cuwheel.toml")) as f:
            cfg = f.read()
        cfg = re.sub(r'^archs = .*$', 'archs = "8.0"', cfg, flags=re.M)
        cfg = re.sub(r"\[tool\.cuwheel\.matrix\].*", "", cfg, flags=re.S)
        cfg += (f"[tool.cuwheel.matrix]\npython = {json.dumps(pythons)}\ncuda = [\"{cuda}\"]\n"
                f"torch = [\"{minor}\"]\n\n[tool.cuwheel.ci]\n"
                f"cuwheel = {{url = \"file://{cw}\", sha256 = \"{digest}\"}}\n")
        with open(os.path.join(repo, "gsplat.cuwheel.toml"), "w") as f:
            f.write(cfg)
        doc = lr.workflow_of_sdist(yaml, work, sdist, os.path.join(repo, "gsplat.cuwheel.toml"),
                                   "cuwheel ci github writes gsplat's workflow")
        # The two indexes the jobs read, replaced by the local stand-ins.
        doc["env"].update(SDIST_INDEX=f"file://{sindex}", PYPI_INDEX=f"file://{windex}")
        runner = lr.Runner(doc, work)
        results = runner.run(repo)
        print(json.dumps(results, indent=1))
        lr.check_jobs(results)
        lr.check_index(runner, len(pythons),
                       f"pt{minor.replace('.', '')}cu{cuda.replace('.', '')}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if lr.failures:
        print(f"{len(lr.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("gsplat_ci_local_run: all checks passed")


main()
