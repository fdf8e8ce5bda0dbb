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
    d0 = doc
    ok = True
    cases = [(lambda d: d["cells"][0]["interpreter"].pop("include_dir"),
              "$.cells[0].interpreter.include_dir: missing"),
             (lambda d: d["config"]["kernels"].__setitem__("rdc", "yes"),
              "$.config.kernels.rdc: is not a boolean"),
             (lambda d: d.__setitem__("format", 99), "$.format: not 1"),
             # what build.ninja cannot express, named by its JSON path
             (lambda d: d.__setitem__("cc", "cc\nrule pwn\n  command = touch /tmp/x"),
              "$.cc (CC from the environment) holds a line break, which build.ninja cannot "
              "express"),
             (lambda d: d.__setitem__("cxx", "c++\r"), "$.cxx (CXX from the environment) "
              "holds a carriage return"),
             (lambda d: d["config"]["extensions"][0]["cflags"].append("-O2\nbuild x: phony"),
              "$.config.extensions[0].cflags[%d] holds a line break"
              % len(d0["config"]["extensions"][0]["cflags"])),
             (lambda d: d["cells"][0]["interpreter"].__setitem__("include_dir", "/usr/\rinc"),
              "$.cells[0].interpreter.include_dir holds a carriage return"),
             (lambda d: d["toolkits"][0]["toolkit"].__setitem__("nvcc", "/x\n/nvcc"),
              "$.toolkits[0].toolkit.nvcc holds a line break"),
             (lambda d: d["config"]["kernels"]["nvcc_flags"].append("-O3\n"),
              "$.config.kernels.nvcc_flags[%d] holds a line break"
              % len(d0["config"]["kernels"]["nvcc_flags"])),
             # integers out of their range
             (lambda d: d["config"].__setitem__("compression", 99),
              "$.config.compression: 99 is out of range (0 to 9)"),
             (lambda d: d["cells"][0].__setitem__("toolkit", -1),
              "$.cells[0].toolkit: -1 is out of range"),
             (lambda d: d["cells"][0].__setitem__("toolkit", 2 ** 40),
              "$.cells[0].toolkit: 1099511627776 is out of range"),
             (lambda d: d["toolkits"][0]["archs"][0].__setitem__("minor", 2 ** 33),
              "$.toolkits[0].archs[0].minor: 8589934592 is out of range (0 to 9)"),
             (lambda d: d["toolkits"][0]["archs"][0].__setitem__("suffix", 98),
              "$.toolkits[0].archs[0].suffix: 98 is not 0, 'a' (97) or 'f' (102)"),
             (lambda d: d["config"]["extensions"][0].__setitem__("kind", 7),
              "$.config.extensions[0].kind: 7 is out of range (0 to 3)"),
             (lambda d: d["opts"].__setitem__("jobs", -5), "$.opts.jobs: -5 is out of range"),
             (lambda d: d.__setitem__("ncpu", 0), "$.ncpu: 0 is out of range"),
             (lambda d: d.__setitem__("nvcc_threads", 1000), "$.nvcc_threads: 1000 is out of "
              "range (0 to 64)"),
             (lambda d: d["config"].__setitem__("openmp", -1),
              "$.config.openmp: -1 is out of range (0 to 2)")]
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


def check_own_opt_level(fixture, tmp):
    """The project's nvcc flags set -O2: every nvcc edge (the kernels' and the torch
    extension's .cu) passes that level alone, not cuwheel's -O3 before it (nvcc warns
    "incompatible redefinition for option 'optimize'" on two levels)."""
    doc = json.load(open(fixture))
    doc["config"]["kernels"]["nvcc_flags"] = ["-O2"]
    path = os.path.join(tmp, "own-opt.json")
    with open(path, "w") as f:
        f.write(json.dumps(doc).replace("@PROJECT@", os.path.join(tmp, "own-opt")))
    p = render(path)
    edges = re.findall(r"^build [^\n]*: nvcc [^\n]*\n(?:  [^\n]*\n)*", p.stdout, re.M)
    flags = [l for e in edges for l in e.splitlines() if l.startswith("  flags = ")]
    torch_cu = [e for e in edges if e.startswith("build shared/")]
    if p.returncode or not flags or not torch_cu or \
            any("-O3" in l.split() or "-O2" not in l.split() for l in flags):
        print(f"FAIL: nvcc-flags -O2: exit {p.returncode}, {len(torch_cu)} torch .cu edges, "
              f"nvcc flags:\n" + "\n".join(flags) + p.stderr, file=sys.stderr)
        return False
    print(f"ok: nvcc-flags -O2: {len(flags)} nvcc edges ({len(torch_cu)} torch .cu) pass -O2 "
          "and no -O3")
    return True


def check_torch_states(fixture, tmp):
    """The torch decisions are written by their names: a name that is no state is refused,
    named by its JSON path; the matrix, which is only shown, may quote a probe's lines."""
    doc = json.load(open(fixture))
    srcs = [s for e in doc["torch_plan"]["exts"] for s in e["srcs"]]
    if not srcs or "matrix" not in doc:
        print(f"FAIL: {fixture} has no torch decision or no matrix", file=sys.stderr)
        return False
    ok = True
    bad = json.loads(json.dumps(doc))
    bad["torch_plan"]["exts"][0]["srcs"][0]["pyfree"] = "maybe"
    path = os.path.join(tmp, "bad-state.json")
    json.dump(bad, open(path, "w"))
    p = render(path)
    want = "$.torch_plan.exts[0].srcs[0].pyfree: 'maybe' is not one of the states"
    if p.returncode != 1 or want not in p.stderr:
        print(f"FAIL: ({want}): exit {p.returncode}, stderr:\n{p.stderr}", file=sys.stderr)
        ok = False
    else:
        print(f"ok: refused: {want}")
    shown = json.loads(json.dumps(doc).replace("@PROJECT@", os.path.join(tmp, "p")))
    shown["matrix"]["cells"][0]["reason"] = "a probe said\nthis"
    path = os.path.join(tmp, "shown.json")
    json.dump(shown, open(path, "w"))
    p = render(path)
    if p.returncode != 0:
        print(f"FAIL: a line break in the matrix (shown, not rendered) is refused:\n{p.stderr}",
              file=sys.stderr)
        ok = False
    else:
        print("ok: a line break in the matrix's reasons renders (the matrix is not rendered)")
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
        results.append(check_own_opt_level(os.path.join(GOLDEN, "plans", "torchext.json"),
                                           os.path.realpath(tmp)))
        results.append(check_torch_states(os.path.join(GOLDEN, "plans", "torchext.json"), tmp))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
