"""Golden files for build.ninja: `cuwheel build -n` on tinyraster, tinyraster with rdc = true,
tinyraster with cudart = "shared" and examples/torchext writes exactly the build.ninja checked
in under tests/integration/golden/ninja/, once the machine's paths are replaced by @NAMES@.
The same run checks the resolved plan that `build -n` writes beside build.ninja (plan.json):
`cuwheel plan --json`, run first for the same selection, printed it byte for byte (one
document, one writer), `cuwheel internal render-ninja` renders exactly that build.ninja from
it, and, normalised as
below, it equals the fixture under tests/integration/golden/plans/ that test_golden_plans.py
renders on any machine (so a fixture cannot go stale while this machine can build the case).
Generated text changes only on purpose: after such a change, rewrite the files (goldens and
fixtures together) with

    python3 tests/integration/test_golden_ninja.py --update

and review the diff. What is normalised: the temporary project directory (@PROJECT@), the
cuwheel binary (@CUWHEEL@), each toolkit root (@CUDA_13.0@), each interpreter and its prefix
(@PYTHON_3.12@, @PYPREFIX_3.12@, a venv's
@PYBASE_3.12@), the toolkit's library directory (lib or lib64: @LIBDIR@) and the archive keys (@KEY1@...: they hash the toolkit's patch
version, which differs between machines). Everything else (rules, flags, edges, order, escaping)
is compared byte for byte. Exits 77 (skipped) when this machine has no CUDA 13.0 toolkit or not
the Pythons a case needs; torchext also needs the venvs of examples/torchext/setup-pythons
($CUWHEEL_TORCH_PYTHONS, default build/torch-pythons)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
GOLDEN = os.path.join(ROOT, "tests", "integration", "golden", "ninja")
PLANS = os.path.join(ROOT, "tests", "integration", "golden", "plans")
TORCH_PYTHONS = os.environ.get("CUWHEEL_TORCH_PYTHONS") or os.path.join(ROOT, "build",
                                                                         "torch-pythons")
SKIP = 77


def tinyraster(dest):
    os.makedirs(dest)
    for name in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
        src = os.path.join(ROOT, "examples", "tinyraster", name)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(dest, name))


def edit(dest, old, new):
    path = os.path.join(dest, "pyproject.toml")
    text = open(path).read()
    assert old in text, f"{old!r} not in {path}"
    open(path, "w").write(text.replace(old, new, 1))


def torchext(dest):
    shutil.copytree(os.path.join(ROOT, "examples", "torchext"), dest)
    pythons = {v: os.path.join(TORCH_PYTHONS, f"py{v}", "bin", "python") for v in ("3.12", "3.13")}
    for v, py in pythons.items():
        if not os.path.exists(py):
            return f"no torch venv {py} (examples/torchext/setup-pythons makes it)"
    path = os.path.join(dest, "pyproject.toml")
    text = open(path).read()
    # The torch 2.11 venvs only (the case's matrix is torch 2.11 x CUDA 13.0; a 3.12 line may
    # list a venv per torch).
    text = re.sub(r'(?m)^"(3\.1[0-3])" = .*$',
                  lambda m: f'"{m[1]}" = "{pythons[m[1]]}"' if m[1] in pythons else "", text)
    # The precompiled header's edges in the golden: forced (the example leaves it at auto,
    # which builds none for two Pythons).
    text = text.replace('kind = "torch"\n', 'kind = "torch"\npch = "on"\n', 1)
    open(path, "w").write(text)
    return None


# name -> (make the project, environment overrides)
CASES = {
    "tinyraster": (tinyraster, {"CUWHEEL_MATRIX_PYTHON": "3.10,3.12,3.13"}),
    "tinyraster-rdc": (lambda d: (tinyraster(d), edit(d, 'cudart = "static"',
                                                      'cudart = "static"\nrdc = true'))[1],
                       {"CUWHEEL_MATRIX_PYTHON": "3.12"}),
    "tinyraster-shared-cudart": (tinyraster, {"CUWHEEL_MATRIX_PYTHON": "3.10,3.12",
                                              "CUWHEEL_CUDART": "shared"}),
    # The example's torch 2.11 x CUDA 13.0 cells (its torch 2.6 x CUDA 12.4 ones need CUDA 12.4
    # and the pt26 venvs: tests/integration/test_torch_ext_matrix.py builds them).
    "torchext": (torchext, {"CUWHEEL_MATRIX_PYTHON": "3.12,3.13", "CUWHEEL_MATRIX_TORCH": "2.11"}),
}


def env_for(overrides):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    # nvcc --threads follows the machine's cores unless it is forced.
    env.update({"CUWHEEL_MATRIX_CUDA": "13.0", "CUWHEEL_CCACHE": "off",
                "CUWHEEL_NVCC_THREADS": "2", "PYTHONDONTWRITEBYTECODE": "1"})
    env.update(overrides)
    return env


def normalise(text, proj, plan):
    subs = {proj: "@PROJECT@", os.path.realpath(CUWHEEL): "@CUWHEEL@"}
    for tk in plan["matrix"]["toolkits"]:
        if tk.get("root"):
            subs.setdefault(tk["root"], f"@CUDA_{tk['cuda']}@")
    for cell in plan["matrix"]["cells"]:
        py = cell.get("interpreter")
        if py:
            subs.setdefault(py, f"@PYTHON_{cell['python']}@")
            # A venv's headers are its base interpreter's: both prefixes are the machine's.
            prefixes = subprocess.run([py, "-c", "import sys; print(sys.prefix); "
                                       "print(sys.base_prefix)"], capture_output=True,
                                      text=True).stdout.split()
            for prefix, tag in zip(prefixes, ("PYPREFIX", "PYBASE")):
                if prefix not in ("/usr", "/usr/local", "/"):
                    subs.setdefault(prefix, f"@{tag}_{cell['python']}@")
    # Longest first, so that a root inside another is replaced by its own name.
    for old, new in sorted(subs.items(), key=lambda s: -len(s[0])):
        text = text.replace(old, new)
    # A toolkit keeps its libraries in lib/ or lib64/ (Debian's, NVIDIA's wheels): its layout.
    text = re.sub(r"(@CUDA_[0-9.]+@)/lib(?:64)?\b", r"\1/@LIBDIR@", text)
    keys = {}
    return re.sub(r"\b(cu\d+)-([0-9a-f]{12})\b",
                  lambda m: f"{m[1]}-@KEY{keys.setdefault(m[2], len(keys) + 1)}@", text)


def normalise_plan(text, proj, plan):
    """The resolved plan as its fixture: machine paths as @NAMES@ (normalise), and the facts
    that build.ninja does not show here (CUWHEEL_NVCC_THREADS is forced) fixed: the CPU count,
    -j, and the toolkits' patch versions (only hashed into the keys, which are normalised)."""
    doc = json.loads(normalise(text, proj, plan))
    doc["ncpu"] = 1
    doc["opts"]["jobs"] = 1
    for tk in doc["toolkits"]:
        tk["toolkit"]["version"] = f"@CUDA_{tk['cuda']}_VERSION@"
    # The matrix as `plan` explains it: the machine's nvcc and host compiler versions too.
    for tk in doc["matrix"]["toolkits"]:
        tk["nvcc_version"] = f"@CUDA_{tk['cuda']}_VERSION@" if tk["nvcc_version"] else None
        if tk["host_compiler"]:
            tk["host_compiler"]["version"] = "@HOST_CXX_VERSION@"
    return json.dumps(doc, indent=1) + "\n"


def generate(name, tmp):
    make, overrides = CASES[name]
    proj = os.path.join(tmp, name)
    why = make(proj)
    if why:
        return None, why
    env = env_for(overrides)
    p = subprocess.run([CUWHEEL, "plan", "--json"], cwd=proj, env=env, capture_output=True,
                       text=True)
    if p.returncode not in (0, 3):
        return None, f"cuwheel plan failed (exit {p.returncode}):\n{p.stderr}"
    plan_text = p.stdout
    plan = json.loads(plan_text)
    cells = [c for c in plan["matrix"]["cells"] if c["selected"]]
    if not cells or not all(c["buildable"] for c in cells):
        why = "; ".join(f"{c['id']}: {c['reason']}" for c in cells if not c["buildable"])
        return None, f"not every cell can be built here ({why or 'none selected'})"
    p = subprocess.run([CUWHEEL, "build", "-n"], cwd=proj, env=env, capture_output=True,
                       text=True)
    if p.returncode:
        return None, f"cuwheel build -n failed (exit {p.returncode}):\n{p.stderr}"
    m = re.search(r"-> (.*build\.ninja)$", p.stdout, re.M)
    if not m:
        return None, f"cuwheel build -n did not name its build.ninja:\n{p.stdout}"
    ninja_file = m[1]
    plan_file = os.path.join(os.path.dirname(ninja_file), "plan.json")
    text = open(ninja_file).read()
    # One document: `plan --json` printed, byte for byte, the plan.json the build wrote for
    # the same selection.
    written = open(plan_file).read()
    if written != plan_text:
        got = os.path.join(tmp, f"{name}.plan-json")
        with open(got, "w") as f:
            f.write(plan_text)
        d = subprocess.run(["diff", "-u", plan_file, got], capture_output=True, text=True)
        return None, (f"failed: `cuwheel plan --json` printed another document than the "
                      f"{plan_file} that `cuwheel build -n` wrote:\n{d.stdout[:6000]}")
    # The invariant: the plan file renders to exactly the build.ninja the build wrote.
    p = subprocess.run([CUWHEEL, "internal", "render-ninja", plan_file], capture_output=True,
                       text=True)
    if p.returncode or p.stdout != text:
        return None, (f"failed: `cuwheel internal render-ninja {plan_file}` (exit "
                      f"{p.returncode}) does not give {ninja_file}:\n{p.stderr}")
    return (normalise(text, proj, plan),
            normalise_plan(open(plan_file).read(), proj, plan)), None


def compare(name, golden, text):
    """True when golden holds text; else prints the diff and how to update."""
    want = open(golden).read() if os.path.exists(golden) else ""
    if text == want:
        print(f"ok: {name}: matches {os.path.relpath(golden, ROOT)}")
        return True
    got = os.path.join(tempfile.gettempdir(), f"cuwheel-golden-{os.path.basename(golden)}")
    with open(got, "w") as f:
        f.write(text)
    d = subprocess.run(["diff", "-u", golden, got], capture_output=True, text=True)
    print(f"FAIL: {name}: differs from {golden} (written to {got}); "
          f"if the change is on purpose: {sys.argv[0]} --update\n{d.stdout[:6000]}",
          file=sys.stderr)
    return False


def main():
    update = "--update" in sys.argv[1:]
    if not os.path.exists(CUWHEEL):
        print(f"SKIP: no cuwheel binary at {CUWHEEL}")
        return SKIP
    failed, skipped, passed = [], [], []
    with tempfile.TemporaryDirectory(prefix="cuwheel-golden-") as tmp:
        for name in CASES:
            texts, why = generate(name, os.path.realpath(tmp))
            golden = os.path.join(GOLDEN, f"{name}.ninja")
            fixture = os.path.join(PLANS, f"{name}.json")
            if texts is None:
                (failed if "failed" in why else skipped).append(name)
                print(f"{'FAIL' if 'failed' in why else 'SKIP'}: {name}: {why}", file=sys.stderr)
                continue
            if update:
                for path, text in zip((golden, fixture), texts):
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w") as f:
                        f.write(text)
                    print(f"wrote {os.path.relpath(path, ROOT)}")
                continue
            ok = [compare(name, path, text) for path, text in zip((golden, fixture), texts)]
            (passed if all(ok) else failed).append(name)
    if failed:
        return 1
    if update:
        return 0
    if not passed:
        return SKIP
    if skipped:
        print(f"note: skipped here: {', '.join(skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
