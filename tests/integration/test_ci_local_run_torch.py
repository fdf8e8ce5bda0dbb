"""Runs the Linux jobs of the workflow `cuwheel ci github SDIST --config FILE` writes for gsplat
(examples/gsplat), step by step on this machine (test_ci_local_run.py's runner), with local
stand-ins for the two indexes the jobs read:

- PyPI's PEP 503 page for the sdist: a file:// page holding gsplat-1.5.3.tar.gz (its sha256 is
  the one the workflow pins);
- PyPI and PyTorch's per-CUDA index for torch: a file:// PEP 503 index made from the real torch
  wheels (and their dependencies) found in pip's caches (PIP_CACHE_DIR, ~/.cache/pip,
  build/pip-cache). No stand-in for torch is made: without torch wheels in a cache the test
  exits 77 and says where it looked.

The config is examples/gsplat's with its torch axis set to the cached torch's minor, the
Pythons the cached torch wheels are for, the CUDA of that torch's PyPI build, and archs "8.0";
cuwheel comes from its own wheel (tools/cuwheel-wheel) by digest. It passes when every Linux job
succeeds (the sdist fetched and checked, torch installed into the venvs the workflow names
through CUWHEEL_PYTHONS, kernels once, a wheel per Python built, audited and tested) and the
index job's summary says every cell was published."""
import glob
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
import test_ci_local_run as lr  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = lr.CUWHEEL
SDIST = "gsplat-1.5.3.tar.gz"
SHA256 = "343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906"


def pip_caches():
    dirs = [os.environ.get("PIP_CACHE_DIR"), os.path.expanduser("~/.cache/pip"),
            os.path.join(ROOT, "build", "pip-cache"), "/work/main/build/pip-cache"]
    return [d for d in dirs if d and os.path.isdir(d)]


def cached_wheels(caches):
    """{file name: path} of every wheel pip's caches hold: its HTTP cache keeps each download
    as a body file; a wheel is a zip with a .dist-info/WHEEL, named from its METADATA and tags."""
    out = {}
    for c in caches:
        for dirpath, _, files in os.walk(c):
            for f in files:
                p = os.path.join(dirpath, f)
                if f.endswith(".whl"):
                    out[f] = p
                    continue
                if os.path.getsize(p) < 1024 or not zipfile.is_zipfile(p):
                    continue
                try:
                    z = zipfile.ZipFile(p)
                    wheel = [n for n in z.namelist() if n.endswith(".dist-info/WHEEL")][0]
                    meta = z.read(wheel[:-5] + "METADATA").decode(errors="replace")
                    tags = re.findall(r"^Tag: (.+)$", z.read(wheel).decode(), re.M)
                except (zipfile.BadZipFile, IndexError, KeyError, OSError):
                    continue
                name = re.search(r"^Name: (.+)$", meta, re.M).group(1).strip()
                ver = re.search(r"^Version: (.+)$", meta, re.M).group(1).strip()
                py, abi, plat = (set(x) for x in zip(*(t.split("-") for t in tags)))
                fname = "%s-%s-%s-%s-%s.whl" % (re.sub(r"[-_.]+", "_", name), ver,
                                                ".".join(sorted(py)), ".".join(sorted(abi)),
                                                ".".join(sorted(plat)))
                out[fname] = p
    return out


def simple_index(root, files):
    """A PEP 503 index of files ({name: path}) under root."""
    for fname, path in files.items():
        proj = re.sub(r"[-_.]+", "-", fname.split("-")[0]).lower()
        d = os.path.join(root, proj)
        os.makedirs(d, exist_ok=True)
        shutil.copy(path, os.path.join(d, fname))
    for proj in os.listdir(root):
        d = os.path.join(root, proj)
        links = "".join(f'<a href="{f}">{f}</a>\n' for f in sorted(os.listdir(d))
                        if f != "index.html")
        with open(os.path.join(d, "index.html"), "w") as f:
            f.write(f"<html><body>\n{links}</body></html>\n")


def main():
    yaml = lr.yaml_module()
    caches = pip_caches()
    wheels = cached_wheels(caches)
    torch = sorted(f for f in wheels if re.match(r"torch-\d+\.\d+\.\d+(\+cu\d+)?-cp3\d+-", f))
    if not torch:
        print("SKIP: no torch wheel in pip's caches (looked in %s): the torch project's local "
              "run installs the real torch from a local index made of them, never a stand-in"
              % (", ".join(caches) or "no cache dir exists"))
        sys.exit(77)
    m = re.match(r"torch-(\d+\.\d+)\.\d+", torch[0])
    minor = m.group(1)
    pythons = sorted({"3." + re.search(r"-cp3(\d+)-", f).group(1) for f in torch
                      if f.startswith(f"torch-{minor}.")})
    with open(os.path.join(ROOT, "ci", "torch_builds.def")) as f:
        rows = {r[0]: r[2] for r in re.findall(r'TORCH_BUILD\("([^"]+)", "([^"]+)", "([^"]+)"',
                                               f.read())}
    if minor not in rows:
        print(f"SKIP: the cached torch {minor} is not in ci/torch_builds.def")
        sys.exit(77)
    cuda = rows[minor]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import test_ci_sdist  # noqa: E402  (its sdist finder; exits 77 without the sdist)
    work = tempfile.mkdtemp(prefix="cuwheel-ci-local-torch-")
    try:
        sdist = test_ci_sdist.find_sdist(work)
        sindex = os.path.join(work, "sdist-index")
        simple_index(sindex, {SDIST: sdist})
        windex = os.path.join(work, "wheel-index")
        simple_index(windex, wheels)
        os.symlink(windex, os.path.join(work, "cu" + cuda.replace(".", "")))
        p = subprocess.run([os.path.join(ROOT, "tools", "cuwheel-wheel"),
                            os.path.join(work, "cuwheel-dist"),
                            os.path.join(ROOT, "build", "wheel-a")], capture_output=True,
                           text=True)
        if not lr.check(p.returncode == 0, "tools/cuwheel-wheel packs cuwheel", p.stderr):
            sys.exit(1)
        cw = p.stdout.strip().splitlines()[-1]
        digest = hashlib.sha256(open(cw, "rb").read()).hexdigest()
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
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL")}
        env["CUWHEEL_BUILD_DIR"] = os.path.join(work, "plan-build")
        wf = os.path.join(work, "wheels.yml")
        p = subprocess.run([CUWHEEL, "ci", "github", sdist, "--config",
                            os.path.join(repo, "gsplat.cuwheel.toml"), "-o", wf], env=env,
                           capture_output=True, text=True)
        if not lr.check(p.returncode == 0, "cuwheel ci github writes gsplat's workflow",
                        p.stderr):
            sys.exit(1)
        doc = yaml.safe_load(open(wf))
        # The two indexes the jobs read, replaced by the local stand-ins.
        doc["env"].update(SDIST_INDEX=f"file://{sindex}", PYPI_INDEX=f"file://{windex}",
                          TORCH_INDEX=f"file://{work}")
        runner = lr.Runner(doc, work)
        results = runner.run(repo)
        print(json.dumps(results, indent=1))
        for jid, r in results.items():
            if jid not in ("release", "pages", "pypi-sdist"):
                lr.check(r == "success", f"job {jid}: {r}")
        summary = runner.summaries.get("index", "")
        n = len(pythons)
        lr.check(f"{n} of {n} cells published" in summary,
                 f"the index summary: {n} of {n} cells published", summary)
        site = os.path.join(runner.artifacts, "site")
        tag = f"pt{minor.replace('.', '')}cu{cuda.replace('.', '')}"
        lr.check(os.path.isdir(os.path.join(site, tag)), f"the index job uploads site/{tag}/")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if lr.failures:
        print(f"{len(lr.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_local_run_torch: all checks passed")


main()
