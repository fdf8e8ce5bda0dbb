"""cuwheel index and cuwheel retag publish a wheel whose package loads a shared library by path
(loaded-by = "path": no PyInit_, as the PyG family's _op_cpu/_op_cuda): refused by the audit
without being told (the refusal names the wheel, the member, the option and the config key),
passed with --library MODULE, or read from the config of the project they run in (-C DIR,
--config FILE) for that project's wheels only; a wheel of another project holding a module of
the same name is still refused. The workflow `cuwheel ci github` writes gives the config's
modules to its index step, whose script, run here, publishes the wheel."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheelfixture as wf  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci",
                                                                     "cuwheel"))
SUFFIX = ".cpython-312-x86_64-linux-gnu.so"
MEMBER = "demo/_ops" + SUFFIX
WHEEL = "demo-1.0+cu130-cp312-cp312-linux_x86_64.whl"
OTHER = "other-1.0-cp312-cp312-linux_x86_64.whl"
failures = []

CONFIG = """[project]
name = "demo"
version = "1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["demo"]

[tool.cuwheel.extension]
module = "demo._ops"
kind = "capi"
sources = ["src/ops.c"]
LOADED_BY

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
local-version = "cu{cuda_nodot}"

[tool.cuwheel.ci]
publish = ["release", "pages"]
"""
LIB_C = '__attribute__((visibility("default"))) int demo_scale(int x) { return 2 * x; }\n'


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)
    return cond


def cw(*args, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    return subprocess.run([CUWHEEL, *args], cwd=cwd, env=env, capture_output=True, text=True)


def project(tmp, loaded_by='loaded-by = "path"', name="proj"):
    """A project whose one extension, demo._ops, is (or is not) a library loaded by path."""
    proj = os.path.join(tmp, name)
    os.makedirs(os.path.join(proj, "demo"), exist_ok=True)
    os.makedirs(os.path.join(proj, "src"), exist_ok=True)
    open(os.path.join(proj, "demo", "__init__.py"), "w").close()
    with open(os.path.join(proj, "src", "ops.c"), "w") as f:
        f.write(LIB_C)
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write(CONFIG.replace("LOADED_BY", loaded_by))
    return proj


def wheels(tmp):
    """dist/ with demo's wheel (its _ops library exports no PyInit_, as the build makes it) and
    other/ with another project's wheel that holds a module of the same dotted name."""
    lib = os.path.join(tmp, "_ops.so")
    src = os.path.join(tmp, "ops.c")
    with open(src, "w") as f:
        f.write(LIB_C)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", src, "-o", lib], check=True)
    with open(lib, "rb") as f:
        data = f.read()
    files = {"demo/__init__.py": b"", MEMBER: data}
    dist = os.path.join(tmp, "dist")
    wf.make_wheel(dist, "demo", "1.0+cu130", "cp312-cp312-linux_x86_64", files)
    other = os.path.join(tmp, "other")
    wf.make_wheel(other, "other", "1.0", "cp312-cp312-linux_x86_64", files)
    return dist, other


def refused_well(p, wheel, verb, what):
    """The refusal: exit 1, the wheel, the member, the code, and the option and config key that
    fix it, with no raw control byte."""
    check(p.returncode == 1, f"{what}: exit 1", p.stdout + p.stderr)
    check(f"{wheel}: error: refused to {verb}: the audit fails: {MEMBER}: extension module "
          "exports no PyInit__ops" in p.stderr and "(pyinit-missing)" in p.stderr,
          f"{what}: refused naming the wheel, the member and the code", p.stderr)
    check("--library demo._ops" in p.stderr and 'loaded-by = "path"' in p.stderr and
          "[[tool.cuwheel.extension]]" in p.stderr,
          f"{what}: the hint names --library demo._ops and loaded-by = \"path\"", p.stderr)


def index_cases(tmp, dist, other, proj):
    site = os.path.join(tmp, "site")
    p = cw("index", dist, "--out", site, cwd=tmp)
    refused_well(p, WHEEL, "publish", "index without --library")
    check(not os.path.exists(site), "index refused: nothing written")

    p = cw("index", dist, "--out", site, "--library", "demo._ops", cwd=tmp)
    check(p.returncode == 0 and os.path.exists(os.path.join(site, "cu130", "demo", WHEEL)),
          "index --library demo._ops publishes the wheel", p.stdout + p.stderr)
    page = os.path.join(site, "demo", "index.html")
    check(os.path.exists(page) and WHEEL.replace("+", "%2B") in open(page).read(),
          "the root page lists it")

    # The config route: -C DIR, and the project's own directory.
    for args, cwd, what in ((("-C", proj), tmp, "-C DIR"), ((), proj, "the project dir")):
        shutil.rmtree(site, ignore_errors=True)
        p = cw(*args, "index", dist, "--out", site, cwd=cwd)
        check(p.returncode == 0 and os.path.exists(os.path.join(site, "cu130", "demo", WHEEL)),
              f"index in {what}: the config's loaded-by = \"path\" publishes it", p.stderr)
        check("note: loaded by path (loaded-by = \"path\"): demo._ops: no PyInit_ is asked of "
              "it in the wheels of demo" in p.stderr, f"index in {what}: a note says so",
              p.stderr)
    # --config FILE beside the project: the same config read from another file.
    shutil.copy(os.path.join(proj, "pyproject.toml"), os.path.join(tmp, "demo.toml"))
    shutil.rmtree(site, ignore_errors=True)
    p = cw("-C", proj, "--config", os.path.join(tmp, "demo.toml"), "index", dist, "--out",
           site, cwd=tmp)
    check(p.returncode == 0 and "demo.toml: note: loaded by path" in p.stderr,
          "index --config FILE: its loaded-by = \"path\" is read", p.stderr)

    # Another project's wheel with a module of the same name: the config is not its own.
    p = cw("-C", proj, "index", other, "--out", os.path.join(tmp, "site-other"), cwd=tmp)
    refused_well(p, OTHER, "publish", "another project's wheel, config route")
    p = cw("index", other, "--out", os.path.join(tmp, "site-other"), "--library", "demo._ops",
           cwd=tmp)
    check(p.returncode == 0, "another project's wheel with an explicit --library: published",
          p.stderr)

    # A config without loaded-by grants nothing; one that cannot be read is a warning.
    bare = project(tmp, loaded_by="", name="bare")
    p = cw("-C", bare, "index", dist, "--out", os.path.join(tmp, "site-bare"), cwd=tmp)
    refused_well(p, WHEEL, "publish", "a config without loaded-by")
    check("note:" not in p.stderr, "a config without loaded-by: no note", p.stderr)
    broken = project(tmp, loaded_by='loaded-by = "path"\nbogus-key = 1', name="broken")
    p = cw("-C", broken, "index", dist, "--out", os.path.join(tmp, "site-broken"), cwd=tmp)
    refused_well(p, WHEEL, "publish", "a config that cannot be loaded")
    check("warning:" in p.stderr and "bogus-key" in p.stderr and
          "going on without the project's config" in p.stderr,
          "a config that cannot be loaded: its errors as warnings, and why they matter",
          p.stderr)
    p = cw("-C", broken, "index", dist, "--out", os.path.join(tmp, "site-broken"), "--library",
           "demo._ops", cwd=tmp)
    check(p.returncode == 0, "a broken config and --library: published", p.stderr)


def retag_cases(tmp, dist, proj):
    wheel = os.path.join(dist, WHEEL)
    out = os.path.join(tmp, "retagged")
    new = os.path.join(out, WHEEL.replace("+cu130", "+cu131"))
    p = cw("retag", wheel, "--local", "cu131", "-o", out, cwd=tmp)
    refused_well(p, WHEEL, "retag", "retag without --library")
    check(not os.path.exists(new), "retag refused: nothing written")
    p = cw("retag", wheel, "--local", "cu131", "-o", out, "--library", "demo._ops", cwd=tmp)
    check(p.returncode == 0 and p.stdout.strip() == new and os.path.exists(new),
          "retag --library demo._ops writes the wheel", p.stdout + p.stderr)
    a = cw("audit", new, "--library", "demo._ops")
    check(a.returncode == 0, "the retagged wheel passes the audit told of its library", a.stdout)
    if os.path.exists(new):
        os.unlink(new)
    p = cw("-C", proj, "retag", wheel, "--local", "cu131", "-o", out, cwd=tmp)
    check(p.returncode == 0 and os.path.exists(new) and "note: loaded by path" in p.stderr,
          "retag in the project: the config's loaded-by = \"path\" is read", p.stderr)


def usage_cases(tmp, dist):
    """One spelling and one check for audit, index and retag."""
    wheel = os.path.join(dist, WHEEL)
    for cmd in (["audit", wheel], ["index", dist, "--out", os.path.join(tmp, "s")],
                ["retag", wheel, "--local", "x"]):
        for bad in ("demo ops", "demo..ops", "1demo", ".demo", "demo._ops\x1b[2J"):
            p = cw(*cmd, "--library", bad, cwd=tmp)
            check(p.returncode == 2 and "not a dotted Python module name" in p.stderr and
                  "\x1b" not in p.stderr, f"{cmd[0]} --library {bad!r}: a usage error",
                  p.stderr)
        p = cw(cmd[0], "--help")
        check("--library MODULE" in p.stdout and "loaded-by = \"path\"" in p.stdout,
              f"{cmd[0]} --help documents --library", p.stdout)


def workflow_cases(tmp, dist, proj):
    """The emitted workflow gives the config's modules to every cuwheel index/retag it runs,
    the scripts read them from env:, and the index step's script publishes the wheel here."""
    import test_ci_github as gh  # the validators (schema, shellcheck, actionlint)
    p = cw("-C", proj, "ci", "github", "--stdout", "--cuwheel", gh.CUWHEEL_SPEC)
    if not check(p.returncode == 0, "ci github for a loaded-by project: exit 0", p.stderr):
        return
    doc = gh.validate("loaded-by workflow", p.stdout)
    failures.extend(gh.failures)  # what validate found (it reports into its own module)
    runs = 0
    for jname, job in doc["jobs"].items():
        for st in job["steps"]:
            lines = [ln.strip() for ln in st.get("run", "").splitlines()]
            audited = [ln for ln in lines if ln.startswith("cuwheel ") and
                       any(w in ("index", "retag") for w in ln.split()[1:3])]
            for ln in audited:
                runs += 1
                check('"${library_args[@]}"' in ln and
                      st.get("env", {}).get("LIBRARIES") == "demo._ops",
                      f"{jname}/{st.get('name')}: `{ln}` is given the config's libraries",
                      st.get("env"))
    check(runs == 2, "the index job's and the pages job's cuwheel index both", str(runs))
    step = [s for s in doc["jobs"]["index"]["steps"]
            if "index_site.sh" in s.get("run", "")][0]
    work = os.path.join(tmp, "runner")
    shutil.copytree(dist, os.path.join(work, "dist"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    env.update(step["env"])
    env["PATH"] = os.path.dirname(CUWHEEL) + os.pathsep + env["PATH"]
    if os.path.basename(CUWHEEL) != "cuwheel":
        os.symlink(CUWHEEL, os.path.join(work, "cuwheel"))
        env["PATH"] = work + os.pathsep + env["PATH"]
    r = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=env,
                       capture_output=True, text=True)
    check(r.returncode == 0 and
          os.path.exists(os.path.join(work, "site", "cu130", "demo", WHEEL)),
          "the index step's script, run here, publishes the wheel", r.stdout + r.stderr)
    env["LIBRARIES"] = ""
    shutil.rmtree(os.path.join(work, "site"))
    r = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=env,
                       capture_output=True, text=True)
    check(r.returncode == 1 and "pyinit-missing" in r.stderr,
          "the same script without LIBRARIES is refused: the env is what passes it", r.stderr)
    # A project without loaded-by: no LIBRARIES, no library_args.sh (the goldens hold the
    # rest of such a workflow byte for byte).
    bare = project(tmp, loaded_by="", name="bare-ci")
    p = cw("-C", bare, "ci", "github", "--stdout", "--cuwheel", gh.CUWHEEL_SPEC)
    check(p.returncode == 0 and "LIBRARIES" not in p.stdout and "library_args.sh" not in
          p.stdout and 'cuwheel index "$DIST" --out site\n' in p.stdout,
          "no loaded-by: the index step as before", p.stderr)


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-index-libs-")
    try:
        dist, other = wheels(tmp)
        proj = project(tmp)
        index_cases(tmp, dist, other, proj)
        retag_cases(tmp, dist, proj)
        usage_cases(tmp, dist)
        workflow_cases(tmp, dist, proj)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_index_libraries: all checks passed")


if __name__ == "__main__":
    main()
