"""Golden build.ninja rendered from committed plan fixtures, on any machine: no CUDA, no torch,
no Pythons needed. Each tests/integration/golden/plans/NAME.json is the resolved plan that
`cuwheel build -n` wrote for one case of test_golden_ninja.py (machine paths as @NAMES@; that
test keeps the fixture equal to what a machine with CUDA 13.0 and the torch venvs resolves, and
its --update rewrites both). Here the fixture's @PROJECT@ becomes a temporary directory,
`cuwheel internal render-ninja` renders it, the directory is named @PROJECT@ again and the keys
@KEY1@..., and the text must equal tests/integration/golden/ninja/NAME.ninja byte for byte. A
fixture broken on purpose must be refused with its file and JSON path."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
GOLDEN = os.path.join(ROOT, "tests", "integration", "golden")
SKIP = 77


def keys(text):
    """The archive and shared-object keys as @KEY1@... in order of appearance (they hash the
    toolkit's patch version), as test_golden_ninja.py writes them."""
    seen = {}
    return re.sub(r"\b(cu\d+)-([0-9a-f]{12})\b",
                  lambda m: f"{m[1]}-@KEY{seen.setdefault(m[2], len(seen) + 1)}@", text)


def render(plan_file):
    return subprocess.run([CUWHEEL, "internal", "render-ninja", plan_file], capture_output=True,
                          text=True)


def check_fixture(fixture, tmp):
    name = os.path.basename(fixture)[:-len(".json")]
    proj = os.path.join(tmp, name, "project")
    plan_file = os.path.join(tmp, f"{name}.json")
    with open(fixture) as f, open(plan_file, "w") as out:
        out.write(f.read().replace("@PROJECT@", proj))
    p = render(plan_file)
    if p.returncode:
        print(f"FAIL: {name}: render-ninja exit {p.returncode}:\n{p.stderr}", file=sys.stderr)
        return False
    text = keys(p.stdout.replace(proj, "@PROJECT@"))
    golden = os.path.join(GOLDEN, "ninja", f"{name}.ninja")
    if text == open(golden).read():
        print(f"ok: {name}: {os.path.relpath(fixture, ROOT)} renders "
              f"{os.path.relpath(golden, ROOT)}")
        return True
    got = os.path.join(tmp, f"{name}.ninja")
    with open(got, "w") as f:
        f.write(text)
    d = subprocess.run(["diff", "-u", golden, got], capture_output=True, text=True)
    print(f"FAIL: {name}: the fixture renders another build.ninja than {golden}\n"
          f"{d.stdout[:6000]}", file=sys.stderr)
    return False


def check_refusals(fixture, tmp):
    """A plan that lacks a field, has one of the wrong type or another format is refused,
    naming the file and the JSON path."""
    doc = json.load(open(fixture))
    ok = True
    cases = [(lambda d: d["cells"][0]["interpreter"].pop("include_dir"),
              "$.cells[0].interpreter.include_dir: missing"),
             (lambda d: d["config"]["kernels"].__setitem__("rdc", "yes"),
              "$.config.kernels.rdc: is not a boolean"),
             (lambda d: d.__setitem__("format", 99), "$.format: not 1")]
    for i, (spoil, want) in enumerate(cases):
        bad = json.loads(json.dumps(doc))
        spoil(bad)
        path = os.path.join(tmp, f"bad{i}.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        p = render(path)
        if p.returncode != 1 or path not in p.stderr or want not in p.stderr or p.stdout:
            print(f"FAIL: a spoiled plan ({want}): exit {p.returncode}, stderr:\n{p.stderr}",
                  file=sys.stderr)
            ok = False
        else:
            print(f"ok: refused: {want}")
    return ok


def main():
    if not os.path.exists(CUWHEEL):
        print(f"SKIP: no cuwheel binary at {CUWHEEL}")
        return SKIP
    fixtures = sorted(glob.glob(os.path.join(GOLDEN, "plans", "*.json")))
    if not fixtures:
        print(f"FAIL: no plan fixtures under {GOLDEN}/plans", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="cuwheel-plans-") as tmp:
        results = [check_fixture(f, os.path.realpath(tmp)) for f in fixtures]
        results.append(check_refusals(fixtures[0], tmp))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
