"""test_ci_local_run_aarch64: the linux_aarch64 cross leg of an emitted workflow, run here step by
step, and one of the wheels its index publishes installed and imported under qemu-user.

tinyraster with `[tool.cuwheel.ci] aarch64 = "cross"` and `cuwheel = <the wheel
tools/cuwheel-wheel packs>`, its matrix CUDA 13.0, platform linux_aarch64, Python 3.13 (and the
abi3 wheel): `cuwheel ci github`
writes one cross leg (kernels-cu130-linux_aarch64 -> wheels-cu130-linux_aarch64, on
ubuntu-24.04 without a container) and the index. test_ci_local_run's harness runs its jobs (the
run: scripts as written, uses: steps by local equivalents): the runner's packages (all present
here: nothing installed), cuwheel pip-installed from its wheel by digest, `cuwheel toolkit
install 13.0` and `cuwheel cross install gcc cuda-13.0 python-3.11 python-3.13` (cuwheel's own
cache, ~/.cache/cuwheel, as the main job's build uses: nothing is downloaded twice), the kernels
compiled once for aarch64, the cp310-abi3 and cp313 wheels linked, audited and tested under
qemu-aarch64-static by the wheels job's build, as its report.json records; the index publishes
both. Then this machine's pip installs tinyraster from the published index for the target
(`--platform manylinux_2_34_aarch64 --python-version 3.13 --target DIR`): its module is an
aarch64 ELF file, and the arm64 CPython 3.13 under qemu imports it and reports no CUDA driver.

Needs nvcc 13.0 (or cuwheel's cache), qemu-aarch64-static, pyenv's Python 3.12 (the index job's
setup-python), deb.debian.org and PyPI (the cross parts, unless cached; pytest and numpy for the
tests), else skips (77). Its cost is printed at the end (CPU seconds of its children)."""
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ci_local_run as lr  # noqa: E402
from checks import elf_machine, online  # noqa: E402
from testskip import skip  # noqa: E402

LEG = "cu130-linux_aarch64"
MATRIX = """[tool.cuwheel.matrix]
python = ["3.13"]
cuda = ["13.0"]
platform = ["linux_aarch64"]
abi3-per-python = true
local-version = "cu{cuda_nodot}"
"""
CELLS = ("cp310-abi3-cu130-linux_aarch64", "cp313-cu130-linux_aarch64")


def workflow(yaml, work, project):
    """The workflow `cuwheel ci github` writes for the project's aarch64 cross leg, loaded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL")}
    wf = os.path.join(work, "wheels.yml")
    p = subprocess.run([lr.CUWHEEL, "-C", project, "ci", "github", "-o", wf], env=env,
                       capture_output=True, text=True)
    if not lr.check(p.returncode == 0, "cuwheel ci github writes the cross workflow", p.stderr):
        sys.exit(1)
    doc = yaml.safe_load(open(wf))
    jobs = doc["jobs"]
    lr.check(sorted(jobs) == sorted([f"kernels-{LEG}", f"wheels-{LEG}", "index"]) and
             all(jobs[j]["runs-on"] == "ubuntu-24.04" and "container" not in jobs[j]
                 for j in (f"kernels-{LEG}", f"wheels-{LEG}")) and
             jobs[f"wheels-{LEG}"]["env"]["CELLS"] == " ".join(CELLS),
             "one cross leg on ubuntu-24.04 without a container, and the index",
             json.dumps({j: (v.get("runs-on"), v.get("env")) for j, v in jobs.items()}, indent=1))
    return doc


def step_log(rep_path, step):
    """The text of a report step's output file (a path relative to the build dir), or ""."""
    out = step.get("output") or ""
    for base in ("", os.path.dirname(rep_path), os.path.dirname(os.path.dirname(rep_path))):
        path = os.path.join(base, out)
        if out and os.path.isfile(path):
            return open(path, errors="replace").read()
    return ""


def check_built(runner):
    """The wheels job's report.json: each cell built against the arm64 CPython's headers (a
    cross part), linked, audited and tested on 3.13 ("WHEEL 3.13 pass"): an aarch64 wheel's
    tests run only in a venv whose python runs under qemu-user. Prints each step's time."""
    ws = runner.workspaces.get(f"wheels-{LEG}", "")
    reps = glob.glob(os.path.join(ws, "**", "report.json"), recursive=True) if ws else []
    rep = json.load(open(reps[0])) if reps else {}
    cells = {c["id"]: c for c in rep.get("cells", []) if c.get("result") == "ok"}
    steps = {(s.get("row"), s.get("name")): s for s in rep.get("steps", [])}
    for (row, name), s in sorted(steps.items()):
        print(f"   {row} {name}: {(s['end_ms'] - s['start_ms']) / 1000:.1f} s wall", flush=True)
    for cid in CELLS:
        interp = cells.get(cid, {}).get("interpreter") or ""
        test = steps.get((cid, "test"))
        log = step_log(reps[0], test) if test else ""
        lr.check("/cross/linux_aarch64/python-" in interp and (cid, "audit") in steps and
                 re.search(r"_aarch64\.whl 3\.13 pass ", log) is not None,
                 f"{cid}: built against the arm64 CPython, audited, its tests passed under qemu",
                 json.dumps({"interpreter": interp, "steps": sorted(k[1] for k in steps
                                                                     if k[0] == cid),
                             "test log": log[-1500:]}))


def python_root(minor):
    """The cross part python-MINOR's root in cuwheel's cache (`cuwheel cross list`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    p = subprocess.run([lr.CUWHEEL, "cross", "list"], env=env, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] == "linux_aarch64" and f[1].startswith(f"python-{minor}."):
            return f[2]
    return None


def install_and_import(work, site):
    """tinyraster from the published index, installed for aarch64 by this machine's pip and
    imported by the arm64 CPython 3.13 under qemu."""
    target = os.path.join(work, "aarch64-site")
    py = lr.pyenv_python("3.12")
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-cache-dir", "--no-deps",
                        "--only-binary", ":all:", "--platform", "manylinux_2_34_aarch64",
                        "--python-version", "3.13", "--implementation", "cp", "--abi", "cp313",
                        "--target", target, "--index-url", f"file://{site}/cu130/",
                        "tinyraster"], capture_output=True, text=True)
    if not lr.check(p.returncode == 0, "pip installs tinyraster for aarch64 from the index",
                    p.stdout + p.stderr):
        return
    mods = glob.glob(os.path.join(target, "tinyraster", "_C*.so"))
    lr.check(len(mods) == 1 and elf_machine(open(mods[0], "rb").read(64)) == 183,
             f"the installed module is an aarch64 ELF file ({[os.path.basename(m) for m in mods]})")
    root = python_root("3.13")
    if not lr.check(root is not None, "cuwheel's cache holds the arm64 CPython 3.13"):
        return
    env = dict(os.environ, PYTHONPATH=target, PYTHONNOUSERSITE="1")
    p = subprocess.run([shutil.which("qemu-aarch64-static"), "-L", root,
                        os.path.join(root, "usr", "bin", "python3.13"), "-c",
                        "import platform, tinyraster, tinyraster._C as c; "
                        "print(platform.machine(), c.__file__.rsplit('/', 1)[-1], "
                        "tinyraster.cuda_available())"],
                       env=env, capture_output=True, text=True, cwd=work)
    lr.check(p.returncode == 0 and p.stdout.split()[:1] == ["aarch64"] and
             p.stdout.split()[-1:] == ["False"],
             f"qemu: arm64 CPython 3.13 imports it, no CUDA driver ({p.stdout.strip()})",
             p.stderr[-3000:])


def main():
    yaml = lr.yaml_module()
    if not shutil.which("nvcc", path="/usr/local/cuda-13.0/bin") and \
            not os.path.isdir(os.path.expanduser("~/.cache/cuwheel/toolkits")):
        skip("no CUDA 13 toolkit can be found or provisioned here")
    if not shutil.which("qemu-aarch64-static"):
        skip("no qemu-aarch64-static (Debian's qemu-user-static): the tests run under it")
    if not online():
        skip("deb.debian.org or pypi.org is not reachable: the cross parts and the tests' "
             "requirements are downloaded")
    lr.pyenv_pythons(["3.12"])
    t0, c0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    work = tempfile.mkdtemp(prefix="cuwheel-ci-local-aarch64-")
    keep = os.environ.get("KEEP_CI_LOCAL_RUN")
    try:
        wheel, digest = lr.pack_cuwheel(work)
        with zipfile.ZipFile(wheel) as z:
            lr.check(any(n.endswith("/share/cuwheel/cross.lock.json") for n in z.namelist()),
                     "cuwheel's wheel carries the cross lock")
        project = lr.tinyraster_project(work, wheel, digest, 'aarch64 = "cross"\n')
        # The axes in the file, as a project that ships aarch64 wheels writes them: the jobs
        # plan from the file (an axis set only in the environment of `ci github` is not theirs).
        path = os.path.join(project, "pyproject.toml")
        text = re.sub(r"\[tool\.cuwheel\.matrix\].*?(?=\n\[)", MATRIX, open(path).read(),
                      flags=re.S)
        with open(path, "w") as f:
            f.write(text)
        doc = workflow(yaml, work, project)
        runner = lr.Runner(doc, work)
        results = runner.run(project)
        print(json.dumps(results, indent=1))
        lr.check_jobs(results)
        lr.check(any(c.startswith(f"ccache-{LEG}-") for c in os.listdir(runner.caches)),
                 "the kernels job saved its leg's compile cache (a push)")
        # The toolkit and the cross parts: the kernels job finds no entry and saves one; the
        # wheels job restores that key whole (here over the same files, this machine's cache).
        for step, kind in (("cuda-toolkit", "toolkit"), ("cross-parts", "cross")):
            hit = {j: runner.steps.get(f"{j}-{LEG}", {}).get(step, {}).get("cache-hit")
                   for j in ("kernels", "wheels")}
            lr.check(hit == {"kernels": "false", "wheels": "true"} and
                     sum(c.startswith(f"cuwheel-{kind}-{LEG}-")
                         for c in os.listdir(runner.caches)) == 1,
                     f"the wheels job restores the {kind} entry the kernels job saved",
                     f"{hit} {sorted(os.listdir(runner.caches))}")
        check_built(runner)
        lr.check_index(runner, len(CELLS), "cu130")
        got = sorted(os.listdir(os.path.join(runner.workspaces.get("index", work), "dist")))
        lr.check(len(got) == len(CELLS) and
                 all("+cu130" in w and w.endswith("manylinux_2_34_aarch64.whl") for w in got),
                 f"{len(CELLS)} manylinux_2_34_aarch64 cu130 wheels indexed", str(got))
        install_and_import(work, os.path.join(runner.artifacts, "site"))
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"test_ci_local_run_aarch64: {time.monotonic() - t0:.0f} s wall, "
          f"{c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime:.0f} s CPU")
    if lr.failures:
        print(f"{len(lr.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_local_run_aarch64: all checks passed")


if __name__ == "__main__":
    main()
