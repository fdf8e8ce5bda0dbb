"""Runs the Linux jobs of an emitted workflow here, as a runner would, and installs what the
index job publishes.

The harness reads the YAML that `cuwheel ci github` writes for tinyraster (CUDA 13.0, the
project configured with `[tool.cuwheel.ci] cuwheel = <the wheel tools/cuwheel-wheel packs>`),
orders the Linux jobs by `needs:`, and for each job (and matrix entry) runs every step's
`run:` script as written, with GitHub's shells (`bash --noprofile --norc -eo pipefail`,
`python`), its variables (GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_PATH, GITHUB_ENV,
GITHUB_STEP_SUMMARY, GITHUB_EVENT_NAME=push, ...), the workflow/job/step `env:` with their
expressions evaluated (github.*, matrix.*, secrets.* fallbacks, toJSON(needs)) and step `if:`
conditions. Only `uses:` steps are replaced, by local equivalents: checkout copies the
project, setup-python puts pyenv's interpreters on PATH, artifacts and caches are
directories. A job's `container:` image is replaced by this Debian host. An expression or
action the harness does not know fails the test instead of being skipped.

It ends with `pip install --index-url file://SITE/cu130/ tinyraster` into a fresh venv of each
Python, and imports the extension: the wheels were built, audited, tested and indexed by the
workflow's own scripts, with cuwheel installed from its own wheel by pip."""
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.getcwd()
CUWHEEL = os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel")
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
        if detail:
            print(detail, file=sys.stderr)
    return cond


def die(msg):
    print(f"FAIL {msg}", file=sys.stderr)
    sys.exit(1)


def yaml_module():
    py = os.path.join(ROOT, "build", "test-ci-github-venv", "bin", "python")
    try:
        import yaml
        return yaml
    except ImportError:
        pass
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", os.path.dirname(os.path.dirname(py))],
                       check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "pyyaml"], check=True)
    sys.path.insert(0, subprocess.check_output(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True).strip())
    import yaml
    return yaml


def cache_path(w, ws, env):
    """An actions/cache path: ~ is the job's HOME, a relative path the workspace's."""
    p = w["path"]
    return os.path.join(env["HOME"], p[2:]) if p.startswith("~/") else os.path.join(ws, p)


def save_tree(src, dest):
    """A cache entry of src. Hard links where they can be made: cuwheel's cache under ~ is
    this machine's (gigabytes), and neither side is written to afterwards."""
    def link(a, b):
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)
    shutil.copytree(src, dest, symlinks=True, copy_function=link)


def restore_tree(entry, dest):
    """entry's files at dest; a file dest already has is left as it is (this machine's cuwheel
    cache under ~ holds the same parts: it is not rewritten)."""
    for root, dirs, files in os.walk(entry):
        to = os.path.join(dest, os.path.relpath(root, entry))
        os.makedirs(to, exist_ok=True)
        for f in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            a, b = os.path.join(root, f), os.path.join(to, f)
            if os.path.lexists(b):
                continue
            if os.path.islink(a):
                os.symlink(os.readlink(a), b)
            else:
                shutil.copy2(a, b)


def pyenv_python(version):
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python3")))
    if not found:
        die(f"setup-python: no pyenv Python {version}")
    return found[-1]


def pyenv_pythons(versions):
    """{version: pyenv's newest interpreter of it} (the harness's setup-python and manylinux's
    /opt/python are pyenv's); exits 77 (skipped) when one is missing."""
    import testskip
    found = {}
    for v in versions:
        paths = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{v}.*/bin/python3")))
        if not paths:
            testskip.skip(f"no pyenv Python {v} (the harness's stand-in for the runner's)")
        found[v] = paths[-1]
    return found


def pack_cuwheel(work):
    """(path, sha256) of this cuwheel's wheel, packed by tools/cuwheel-wheel into
    WORK/cuwheel-dist; exits 1 when it cannot be packed."""
    p = subprocess.run([os.path.join(ROOT, "tools", "cuwheel-wheel"),
                        os.path.join(work, "cuwheel-dist"),
                        os.path.join(ROOT, "build", "wheel-a")],
                       capture_output=True, text=True)
    if not check(p.returncode == 0, "tools/cuwheel-wheel packs cuwheel", p.stderr):
        sys.exit(1)
    wheel = p.stdout.strip().splitlines()[-1]
    return wheel, hashlib.sha256(open(wheel, "rb").read()).hexdigest()


def tinyraster_project(work, wheel, digest, ci_more=""):
    """A copy of examples/tinyraster in WORK/project whose [tool.cuwheel.ci] installs cuwheel
    from WHEEL by DIGEST (and holds the lines CI_MORE); returns its path."""
    project = os.path.join(work, "project")
    os.makedirs(project)
    for d in ("kernels", "bindings", "python"):
        shutil.copytree(os.path.join(ROOT, "examples", "tinyraster", d), os.path.join(project, d),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(os.path.join(ROOT, "examples", "tinyraster", "LICENSE"), project)
    with open(os.path.join(ROOT, "examples", "tinyraster", "pyproject.toml")) as f:
        text = f.read()
    with open(os.path.join(project, "pyproject.toml"), "w") as f:
        f.write(text.rstrip("\n") + f'\n\n[tool.cuwheel.ci]\ncuwheel = {{url = "file://{wheel}", '
                f'sha256 = "{digest}"}}\n{ci_more}')
    return project


def workflow_of_sdist(yaml, work, sdist, config, what):
    """The workflow `cuwheel ci github SDIST --config CONFIG` writes (into WORK/wheels.yml, with
    no CUWHEEL_* variable of this shell), loaded; exits 1 when it fails (checked as WHAT)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL")}
    env["CUWHEEL_BUILD_DIR"] = os.path.join(work, "plan-build")
    wf = os.path.join(work, "wheels.yml")
    p = subprocess.run([CUWHEEL, "ci", "github", sdist, "--config", config, "-o", wf], env=env,
                       capture_output=True, text=True)
    if not check(p.returncode == 0, what, p.stderr):
        sys.exit(1)
    return yaml.safe_load(open(wf))


def check_jobs(results):
    """Every job but the publishing ones (release, pages, pypi-sdist: tags only) succeeded."""
    for jid, r in results.items():
        if jid not in ("release", "pages", "pypi-sdist"):
            check(r == "success", f"job {jid}: {r}")


def check_index(runner, n, tag):
    """The index job published the N cells and uploads site/TAG/."""
    summary = runner.summaries.get("index", "")
    check(f"{n} of {n} cells published" in summary,
          f"the index summary: {n} of {n} cells published", summary)
    site = os.path.join(runner.artifacts, "site")
    check(os.path.isdir(os.path.join(site, tag)), f"the index job uploads site/{tag}/")


class Runner:
    def __init__(self, doc, work):
        self.doc = doc
        self.work = work
        self.artifacts = os.path.join(work, "artifacts")
        self.caches = os.path.join(work, "caches")
        os.makedirs(self.artifacts)
        os.makedirs(self.caches)
        self.results = {}

    # ${{ }} expressions: the forms the emitter writes, and nothing else.
    def expr(self, e, ctx):
        e = e.strip()
        m = re.fullmatch(r"github\.(\w+)", e)
        if m:
            return ctx["github"][m.group(1)]
        if e == "runner.temp":
            return ctx["runner_temp"]
        if e in ("runner.os", "runner.arch"):  # the runner's: Linux, X64
            return {"runner.os": "Linux", "runner.arch": "X64"}[e]
        m = re.fullmatch(r"matrix\.([\w-]+)", e)
        if m:
            return str(ctx["matrix"][m.group(1)])
        m = re.fullmatch(r"secrets\.\w+(?:\s*\|\|\s*'((?:[^']|'')*)')?", e)
        if m:
            return (m.group(1) or "").replace("''", "'")
        if e == "toJSON(needs)":
            return json.dumps({n: {"result": self.results[n], "outputs": {}}
                               for n in ctx["needs"]}, indent=2)
        raise ValueError(f"expression the harness does not know: {e}")

    def subst(self, s, ctx):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: self.expr(m.group(1), ctx), str(s))

    def cond(self, c, ctx):
        c = str(c).strip()
        m = re.fullmatch(r"\$\{\{(.*)\}\}", c)
        c = m.group(1).strip() if m else c
        if "&&" in c:
            return all(self.cond(part, ctx) for part in c.split("&&"))
        if c in ("always()", "!cancelled()"):
            return True
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '([^']*)'", c)
        if m:  # an output of an earlier step of the job, "" when it did not run
            v = ctx["steps"].get(m.group(1), {}).get(m.group(2), "")
            return (v == m.group(4)) == (m.group(3) == "==")
        if c == "github.event_name == 'push'":
            return ctx["github"]["event_name"] == "push"
        m = re.fullmatch(r"startsWith\(github\.ref, '([^']*)'\)", c)
        if m:  # the publishing jobs: tags only; this run is a push to main
            return ctx["github"].get("ref", "refs/heads/main").startswith(m.group(1))
        raise ValueError(f"condition the harness does not know: {c}")

    def uses(self, step, ctx, env):
        action = step["uses"].split("@")[0]
        w = {k: self.subst(v, ctx) for k, v in step.get("with", {}).items()}
        ws = ctx["github"]["workspace"]
        if action == "actions/checkout":
            shutil.copytree(ctx["project"], ws, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("build", "dist", ".git"))
        elif action == "actions/setup-python":
            dirs = [os.path.dirname(pyenv_python(v)) for v in w["python-version"].split()]
            env["PATH"] = os.pathsep.join(dirs + [env["PATH"]])
        elif action == "actions/upload-artifact":
            dest = os.path.join(self.artifacts, w["name"])
            if os.path.exists(dest):
                die(f"artifact {w['name']} uploaded twice")
            files = glob.glob(os.path.join(ws, w["path"]))
            if not files and w.get("if-no-files-found", "warn") == "error":
                raise RuntimeError(f"upload-artifact: no files at {w['path']}")
            os.makedirs(dest)
            for f in files:
                if os.path.isdir(f):
                    shutil.copytree(f, dest, dirs_exist_ok=True)
                else:
                    shutil.copy2(f, dest)
        elif action == "actions/download-artifact":
            names = [w["name"]] if "name" in w else sorted(
                n for n in os.listdir(self.artifacts)
                if re.fullmatch(w["pattern"].replace("*", ".*"), n))
            if "name" in w and not os.path.isdir(os.path.join(self.artifacts, w["name"])):
                raise RuntimeError(f"download-artifact: no artifact {w['name']}")
            for n in names:
                dest = os.path.join(ws, w["path"])
                if "pattern" in w and str(step["with"].get("merge-multiple")) != "True":
                    dest = os.path.join(dest, n)
                shutil.copytree(os.path.join(self.artifacts, n), dest, dirs_exist_ok=True)
        elif action == "actions/cache/restore":
            keys = [w["key"]] + [k for k in w.get("restore-keys", "").split("\n") if k]
            for k in keys:
                hits = sorted(d for d in os.listdir(self.caches) if d.startswith(k))
                if hits:
                    restore_tree(os.path.join(self.caches, hits[-1]), cache_path(w, ws, env))
                    # "a boolean value to indicate an exact match was found for the key"
                    return {"cache-hit": "true" if hits[-1] == w["key"] else "false"}
            return {"cache-hit": "false"}
        elif action == "actions/cache/save":
            src, dest = cache_path(w, ws, env), os.path.join(self.caches, w["key"])
            if os.path.isdir(src) and not os.path.exists(dest):  # a key is saved once
                save_tree(src, dest)
        else:
            raise ValueError(f"action the harness does not replace: {action}")
        return {}

    def run_job(self, jid, job, matrix):
        label = jid + (f" ({', '.join(f'{k}={v}' for k, v in matrix.items())})" if matrix else "")
        base = tempfile.mkdtemp(dir=self.work, prefix=jid + "-")
        ws, temp = os.path.join(base, "ws"), os.path.join(base, "temp")
        os.makedirs(ws)
        os.makedirs(temp)
        files = {k: os.path.join(base, k) for k in ("path", "env", "summary", "output")}
        for f in files.values():
            open(f, "w").close()
        needs = job.get("needs", [])
        ctx = {"github": {"workspace": ws, "sha": "0123456789abcdef", "event_name": "push",
                          "ref": "refs/heads/main", "run_id": "1"},
               "matrix": matrix, "needs": needs, "project": self.project, "runner_temp": temp,
               "steps": {}}
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CUWHEEL", "CCACHE"))}
        env.update(CI="true", GITHUB_ACTIONS="true", GITHUB_WORKSPACE=ws, RUNNER_TEMP=temp,
                   RUNNER_OS="Linux", RUNNER_ENVIRONMENT="self-hosted",
                   GITHUB_EVENT_NAME="push", GITHUB_SHA=ctx["github"]["sha"],
                   GITHUB_REF="refs/heads/main", GITHUB_PATH=files["path"],
                   GITHUB_ENV=files["env"], GITHUB_STEP_SUMMARY=files["summary"],
                   GITHUB_OUTPUT=files["output"], GITHUB_JOB=jid)
        if job.get("container"):
            # The manylinux image's /opt/python/cp3X-cp3X/bin: here, pyenv's interpreters.
            dirs = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin")))
            env["PATH"] = os.pathsep.join(dirs + [env["PATH"]])
        for scope in (self.doc.get("env", {}), job.get("env", {})):
            env.update({k: self.subst(v, ctx) for k, v in scope.items()})
        print(f"== job {label}", flush=True)
        ok = True
        for i, st in enumerate(job["steps"]):
            name = st.get("name") or st.get("uses") or f"step {i}"
            if "if" in st:
                run_it = self.cond(st["if"], ctx) if ok or "always()" in str(st["if"]) \
                    else False
            else:
                run_it = ok
            if not run_it:
                print(f"   skip {name}", flush=True)
                continue
            senv = dict(env)
            senv.update({k: self.subst(v, ctx) for k, v in st.get("env", {}).items()})
            try:
                if "uses" in st:
                    out = self.uses(st, ctx, env)
                    if st.get("id"):
                        ctx["steps"][st["id"]] = out
                    rc = 0
                else:
                    shell = st.get("shell") or job.get("defaults", {}).get("run", {}).get(
                        "shell") or self.doc.get("defaults", {}).get("run", {}).get("shell")
                    script = os.path.join(temp, f"step{i}")
                    with open(script, "w") as f:
                        f.write(st["run"])
                    if shell == "bash":
                        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", script]
                    elif shell == "python":
                        argv = ["python", script]
                    else:
                        raise ValueError(f"shell the harness does not run: {shell}")
                    argv[0] = shutil.which(argv[0], path=senv["PATH"])
                    p = subprocess.run(argv, cwd=ws, env=senv, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
                    rc = p.returncode
                    self.logs.setdefault(label, []).append((name, rc, p.stdout))
                    tail = "\n".join(p.stdout.splitlines()[-25:])
                    if rc:
                        print(f"   step {name} exited {rc}:\n{tail}", flush=True)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                print(f"   step {name}: {e}", flush=True)
                rc = 1
            print(f"   {'ok  ' if rc == 0 else 'FAIL'} {name}", flush=True)
            ok = ok and rc == 0
            # GITHUB_PATH and GITHUB_ENV take effect for the steps after this one.
            with open(files["path"]) as f:
                added = [ln.strip() for ln in f if ln.strip()]
            open(files["path"], "w").close()
            env["PATH"] = os.pathsep.join(list(reversed(added)) + [env["PATH"]])
            with open(files["env"]) as f:
                for ln in f:
                    if "=" in ln:
                        k, v = ln.rstrip("\n").split("=", 1)
                        env[k] = v
            open(files["env"], "w").close()
        self.steps[label] = ctx["steps"]
        self.summaries[jid] = open(files["summary"]).read()
        self.workspaces[jid] = ws
        self.entries[label] = ok
        # A hosted runner's RUNNER_TEMP goes with its job: here it would keep every job's torch
        # venvs (6 GB each) until the test ends.
        shutil.rmtree(temp, ignore_errors=True)
        return ok

    def run(self, project, linux_only=True):
        self.project = project
        self.summaries, self.workspaces = {}, {}
        self.steps = {}  # per job: the outputs of its steps with an id
        # Per job and matrix entry ("testpairs-LEG (python=3.12, torch=2.11)"): whether it
        # succeeded, and each run: step's (name, exit status, output).
        self.entries, self.logs = {}, {}
        jobs = self.doc["jobs"]
        order, seen = [], set()

        def visit(j):
            if j in seen:
                return
            seen.add(j)
            for n in jobs[j].get("needs", []):
                visit(n)
            order.append(j)

        for j in jobs:
            visit(j)
        for jid in order:
            job = jobs[jid]
            if not str(job.get("runs-on", "")).startswith("ubuntu"):
                self.results[jid] = "skipped"
                print(f"== job {jid}: not a Linux runner, not run here", flush=True)
                continue
            needs = job.get("needs", [])
            if "if" in job:
                runs = self.cond(job["if"], {"github": {"event_name": "push"}})
            else:
                runs = all(self.results[n] == "success" for n in needs)
            if not runs:
                self.results[jid] = "skipped"
                continue
            m = job.get("strategy", {}).get("matrix", {})
            entries = m.get("include") or [{}]
            res = [self.run_job(jid, job, {k: v for k, v in e.items()}) for e in entries]
            self.results[jid] = "success" if all(res) else "failure"
        return self.results


def main():
    yaml = yaml_module()
    if not shutil.which("nvcc", path="/usr/local/cuda-13.0/bin") and \
            not os.path.isdir(os.path.expanduser("~/.cache/cuwheel/toolkits")):
        print("SKIP: no CUDA 13 toolkit can be found or provisioned here")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="cuwheel-ci-local-")
    keep = os.environ.get("KEEP_CI_LOCAL_RUN")
    try:
        wheel, digest = pack_cuwheel(work)
        project = tinyraster_project(work, wheel, digest)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL")}
        env["CUWHEEL_MATRIX_CUDA"] = "13.0"
        # The harness's setup-python is pyenv's interpreters, which stop at 3.13 here (cp314
        # is built with a provisioned interpreter: build_tinyraster.sh).
        env["CUWHEEL_MATRIX_PYTHON"] = "3.10,3.11,3.12,3.13"
        p = subprocess.run([CUWHEEL, "-C", project, "ci", "github", "-o",
                            os.path.join(work, "wheels.yml")], env=env,
                           capture_output=True, text=True)
        if not check(p.returncode == 0, "cuwheel ci github writes the workflow", p.stderr):
            sys.exit(1)
        doc = yaml.safe_load(open(os.path.join(work, "wheels.yml")))
        check(doc["env"]["CUWHEEL_WHEEL"] == f"file://{wheel}" and
              doc["env"]["CUWHEEL_SHA256"] == digest,
              "the workflow pip-installs cuwheel from its own wheel, by digest")
        runner = Runner(doc, work)
        results = runner.run(project)
        print(json.dumps(results, indent=1))
        for jid, r in results.items():
            check(r == "success", f"job {jid}: {r}")
        check(any(c.startswith("ccache-cu130-linux_x86_64-") for c in os.listdir(runner.caches)),
              "the kernels job saved its leg's compile cache (a push)")
        # `cuwheel toolkit install 13.0` (PyPI's toolkit): the kernels job finds no entry and
        # saves one; the wheels job restores that key whole (here over this machine's cache).
        hit = {j: runner.steps.get(f"{j}-cu130-linux_x86_64", {}).get("cuda-toolkit", {})
               .get("cache-hit") for j in ("kernels", "wheels")}
        check(hit == {"kernels": "false", "wheels": "true"} and
              sum(c.startswith("cuwheel-toolkit-cu130-linux_x86_64-")
                  for c in os.listdir(runner.caches)) == 1,
              "the wheels job restores the toolkit the kernels job saved",
              f"{hit} {sorted(os.listdir(runner.caches))}")
        check_index(runner, 5, "cu130")
        site = os.path.join(runner.artifacts, "site")
        wheels = sorted(os.listdir(os.path.join(runner.workspaces["index"], "dist")))
        check(len(wheels) == 5 and all("manylinux" in w and "+cu130" in w for w in wheels),
              "5 manylinux cu130 wheels indexed", str(wheels))
        for minor in ("3.10", "3.11", "3.12", "3.13"):
            v = os.path.join(work, f"venv-{minor}")
            subprocess.run([pyenv_python(minor), "-m", "venv", v], check=True)
            py = os.path.join(v, "bin", "python")
            p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-cache-dir",
                                "--index-url", f"file://{site}/cu130/", "--no-deps",
                                "tinyraster"], capture_output=True, text=True)
            check(p.returncode == 0, f"{minor}: pip install tinyraster from the index",
                  p.stdout + p.stderr)
            p = subprocess.run([py, "-c", "import tinyraster, tinyraster._C as c; "
                                "print(tinyraster.__file__, c.__file__)"],
                               capture_output=True, text=True, cwd=work)
            check(p.returncode == 0 and "+cu130" not in p.stderr,
                  f"{minor}: import tinyraster._C ({p.stdout.strip().split('/')[-1]})",
                  p.stderr)
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_local_run: all checks passed")


if __name__ == "__main__":
    main()
