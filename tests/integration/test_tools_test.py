"""tools/test's tiers are what docs/developing.md says they are:
  - two tier options together (`--long --quick`, in either order) are refused with exit 2 naming
    both, before anything is installed or built (they were once taken as CTest's arguments and
    one of them silently ignored);
  - the fast tier (`ctest -L fast`, `tools/test --quick`) holds every unit test, every case (one
    CTest test per tests/cases/AREA/CASE/ directory, cases.AREA.CASE) and the goldens and
    fitness tests docs/developing.md lists for it, and nothing labelled slow, long or
    torchmatrix;
  - the ASan pass (labels fast and asan) holds nothing labelled noasan, long or extended, and
    nothing labelled slow or torchmatrix is left in the default tier;
  - every label a test carries is named in docs/developing.md's "Tests" section, so no test
    leaves a tier without the document saying so.
Reads the CTest tests of the build dir beside $CUWHEEL."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
BUILD = os.path.dirname(os.path.abspath(os.environ["CUWHEEL"]))
FAST_NAMED = ("integration.test_golden_plans", "integration.test_folder_graph",
              "integration.test_file_graph", "integration.test_exports",
              "integration.test_function_length", "integration.test_manual",
              "integration.test_machine_paths", "format.check_format",
              "integration.test_tools_test")


def tiers_refused():
    for argv in (["--long", "--quick"], ["--quick", "--long"], ["--no-asan", "--long"],
                 ["--extended", "--quick"]):
        p = subprocess.run([os.path.join(ROOT, "tools", "test")] + argv, capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, PATH="/usr/bin:/bin"))
        check(p.returncode == 2, f"tools/test {' '.join(argv)}: exit {p.returncode}, not 2")
        check(all(a in p.stderr for a in argv),
              f"tools/test {' '.join(argv)}: stderr does not name both: {p.stderr!r}")


def ctest_tests():
    """{test name: set of labels} from `ctest --show-only=json-v1`."""
    p = subprocess.run(["ctest", "--show-only=json-v1"], cwd=BUILD, capture_output=True,
                       text=True, timeout=120, check=True)
    out = {}
    for t in json.loads(p.stdout)["tests"]:
        labels = set()
        for prop in t.get("properties", []):
            if prop["name"] == "LABELS":
                labels = set(prop["value"])
        out[t["name"]] = labels
    return out


def case_dirs():
    base = os.path.join(ROOT, "tests", "cases")
    return {f"cases.{a}.{c}" for a in os.listdir(base) if os.path.isdir(os.path.join(base, a))
            and not a.startswith(("_", "."))
            for c in os.listdir(os.path.join(base, a))
            if os.path.isdir(os.path.join(base, a, c)) and not c.startswith(("_", "."))}


def fast_tier(tests):
    fast = {n for n, labels in tests.items() if "fast" in labels}
    units = {n for n in tests if n.startswith("unit.")}
    check(len(units) >= 10, f"only {len(units)} unit tests registered")
    check(units <= fast, f"unit tests not in the fast tier: {sorted(units - fast)}")
    cases = case_dirs()
    check(len(cases) >= 400, f"only {len(cases)} case directories found")
    missing = cases - set(tests)
    check(not missing, f"case directories without their own CTest test: {sorted(missing)[:5]}")
    check(cases <= fast | missing,
          f"cases not in the fast tier: {sorted(cases - fast - missing)[:5]}")
    extra = {n for n in tests if n.startswith("cases.")} - cases
    check(not extra, f"CTest case tests without a directory: {sorted(extra)[:5]}")
    for n in FAST_NAMED:
        check(n in fast, f"{n} is not in the fast tier (label fast)")
    heavy = sorted(n for n in fast if tests[n] & {"slow", "long", "torchmatrix", "extended"})
    check(not heavy, f"fast tests labelled slow, long, torchmatrix or extended: {heavy}")


def default_tier(tests):
    """The ASan pass (fast and asan) runs none of what the ci pass leaves out or noasan names;
    every test labelled slow or torchmatrix is in a tier tools/test leaves out."""
    asan = {n for n, labels in tests.items() if labels & {"fast", "asan"}}
    odd = sorted(n for n in asan if "asan" in tests[n] and
                 tests[n] & {"noasan", "long", "extended", "fast"})
    check(not odd, f"tests labelled asan and also noasan, long, extended or fast: {odd}")
    check(len([n for n in tests if "asan" in tests[n]]) >= 10,
          "fewer than 10 integration tests labelled asan")
    slow = sorted(n for n, labels in tests.items()
                  if labels & {"slow", "torchmatrix"} and not labels & {"long", "extended"})
    check(not slow, f"slow or torchmatrix tests in the default tier: {slow}")


def labels_documented(tests):
    with open(os.path.join(ROOT, "docs", "developing.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Tests$(.*?)(?=^## |\Z)", text, re.M | re.S)
    check(m is not None, "docs/developing.md has no '## Tests' section")
    section = m.group(1) if m else ""
    labels = sorted(set().union(*tests.values()))
    missing = [l for l in labels if f"`{l}`" not in section]
    check(not missing, f"labels not named (as `label`) in docs/developing.md's Tests section: "
          f"{missing}")


def main():
    tiers_refused()
    tests = ctest_tests()
    fast_tier(tests)
    default_tier(tests)
    labels_documented(tests)
    if failures:
        return 1
    print(f"tools/test: tiers refused together; {len(tests)} tests, "
          f"{sum('fast' in l for l in tests.values())} in the fast tier; labels documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
