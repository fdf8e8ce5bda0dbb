"""cuwheel test: a passing wheel passes, a failing one fails naming wheel and Python, a
win_amd64 wheel is skipped, an abi3 wheel runs on every matrix Python 3.10-3.13, --python and
the matrix axis restrict, the command runs outside the project against the installed copy."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheelfixture as wf  # noqa: E402

PYPROJECT = """
[project]
name = "tinyt"
version = "1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["python/tinyt"]

[tool.cuwheel.matrix]
python = ["3.10", "3.11", "3.12", "3.13"]

[tool.cuwheel.extension]
module = "tinyt._c"
sources = ["src/t.c"]

[tool.cuwheel.test]
requires = ["pytest"]
command = "python -m pytest -q -p no:cacheprovider {project}/tests && test -f {wheel}"
"""

TESTS = '''
import os
import tinyt
import tinyt._c

PROJECT = os.path.realpath(os.environ["TINYT_PROJECT"])


def test_answer_is_42():
    assert tinyt._c.answer() == 42


def test_the_installed_copy_is_imported_from_outside_the_project():
    venv = os.path.realpath(os.environ["VIRTUAL_ENV"])
    assert os.path.realpath(tinyt.__file__).startswith(venv + os.sep)
    assert not os.path.realpath(os.getcwd()).startswith(PROJECT)
'''

failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)


def main():
    pys = wf.pythons()
    missing = {"3.10", "3.11", "3.12", "3.13"} - set(pys)
    if missing:
        print(f"FAIL: pyenv Pythons missing: {sorted(missing)}", file=sys.stderr)
        return 1
    links = wf.pytest_links()
    tmp = tempfile.mkdtemp(prefix="cuwheel-test-cmd-")
    try:
        proj = os.path.join(tmp, "proj dir")  # a space: {project} must be quoted
        for d in ("src", "python/tinyt", "tests", "dist"):
            os.makedirs(os.path.join(proj, d))
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(PYPROJECT)
        open(os.path.join(proj, "src", "t.c"), "w").close()
        open(os.path.join(proj, "python", "tinyt", "__init__.py"), "w").close()
        with open(os.path.join(proj, "tests", "test_tinyt.py"), "w") as f:
            f.write(TESTS)
        dist = os.path.join(proj, "dist")
        work = os.path.join(tmp, "work")
        good = wf.ext_wheel(dist, work, "tinyt", "1.0", pys["3.12"], answer=42)
        bad = wf.ext_wheel(dist, work, "tinyt", "1.0", pys["3.11"], answer=41)
        abi3 = wf.ext_wheel(dist, work, "tinyt", "1.0", pys["3.10"], answer=42, abi3=True)
        win = wf.make_wheel(dist, "tinyt", "1.0", "cp312-cp312-win_amd64",
                            {"tinyt/__init__.py": b""})
        env = dict(os.environ, TINYT_PROJECT=proj)
        env.pop("PIP_INDEX_URL", None)
        env.pop("PIP_EXTRA_INDEX_URL", None)

        # The whole dist dir, as JSON.
        r = wf.run(["-C", proj, "test", "--json", "-j", "4", "--find-links", links], env=env)
        check(r.returncode == 1, "a failing wheel makes the run exit 1",
              f"rc={r.returncode}\n{r.stderr}")
        res = json.loads(r.stdout)["results"]
        by = {}
        for x in res:
            by.setdefault(os.path.basename(x["wheel"]), []).append(x)
        g = by[os.path.basename(good)]
        check([(x["python"], x["result"]) for x in g] == [("3.12", "pass")],
              "the cp312 wheel passes on Python 3.12", json.dumps(g, indent=1))
        b = by[os.path.basename(bad)]
        check([(x["python"], x["result"]) for x in b] == [("3.11", "fail")],
              "the cp311 wheel fails on Python 3.11", json.dumps(b, indent=1))
        check("assert 41 == 42" in (b[0]["output"] or ""), "the failing output is kept",
              json.dumps(b, indent=1))
        a = by[os.path.basename(abi3)]
        check(sorted((x["python"], x["result"]) for x in a)
              == [("3.10", "pass"), ("3.11", "pass"), ("3.12", "pass"), ("3.13", "pass")],
              "the abi3 wheel runs and passes on all four Pythons 3.10-3.13",
              json.dumps(a, indent=1))
        w = by[os.path.basename(win)]
        check(len(w) == 1 and w[0]["result"] == "skip" and "Windows" in w[0]["reason"],
              "the win_amd64 wheel is skipped with a reason", json.dumps(w, indent=1))
        # The 3.11 that cuwheel's discovery picked (PATH's comes before pyenv's): its own
        # version, asked of the interpreter the JSON names.
        pyver = wf.py_info(b[0]["interpreter"])[2] if b and b[0].get("interpreter") else "?"
        check(pyver.startswith("3.11.") and b[0].get("python_version") == pyver,
              "the JSON names the 3.11 interpreter and its version", json.dumps(b, indent=1))
        msg = f"cuwheel: error: test failed: {os.path.basename(bad)} on Python {pyver} (exit 1)"
        check(msg in r.stderr, "the failure names the wheel and the Python", r.stderr)
        check(f"---- {os.path.basename(bad)} on Python {pyver}" in r.stderr
              and "assert 41 == 42" in r.stderr,
              "the failing output is shown under the cell's name", r.stderr)

        # One wheel named on the command line: passes, table output.
        r = wf.run(["-C", proj, "test", "--find-links", links, good], env=env)
        check(r.returncode == 0, "the good wheel alone exits 0", r.stdout + r.stderr)
        check("pass" in r.stdout and "1 passed, 0 failed, 0 skipped" in r.stdout,
              "the summary table says it passed", r.stdout)

        # --python restricts an abi3 wheel to one interpreter.
        r = wf.run(["-C", proj, "test", "--json", "--python", "3.12", "--find-links", links,
                    abi3], env=env)
        got = [(x["python"], x["result"]) for x in json.loads(r.stdout)["results"]]
        check(r.returncode == 0 and got == [("3.12", "pass")],
              "--python 3.12 runs the abi3 wheel on 3.12 only", f"{got}\n{r.stderr}")

        # The matrix axis (here from CUWHEEL_MATRIX_PYTHON) decides where abi3 runs.
        env2 = dict(env, CUWHEEL_MATRIX_PYTHON="3.11,3.13")
        r = wf.run(["-C", proj, "test", "--json", "--find-links", links, abi3], env=env2)
        got = sorted(x["python"] for x in json.loads(r.stdout)["results"])
        check(r.returncode == 0 and got == ["3.11", "3.13"],
              "an abi3 wheel runs on the matrix's Pythons only", f"{got}\n{r.stderr}")

        # Only a wheel this machine cannot run: nothing ran, exit 3.
        r = wf.run(["-C", proj, "test", win], env=env)
        check(r.returncode == 3 and "win_amd64" in r.stdout + r.stderr,
              "a lone win_amd64 wheel is skipped and exits 3", r.stdout + r.stderr)

        # A wheel for a Python this machine lacks is skipped, not failed.
        nopy = wf.make_wheel(os.path.join(tmp, "other"), "tinyt", "1.0",
                             "cp399-cp399-linux_x86_64", {"tinyt/__init__.py": b""})
        r = wf.run(["-C", proj, "test", nopy], env=env)
        check(r.returncode == 3 and "needs Python 3.99" in r.stderr,
              "a wheel for a missing Python is skipped with the reason", r.stdout + r.stderr)

        # Not a wheel name: refused before anything runs.
        junk = os.path.join(tmp, "other", "not-a-wheel.whl")
        open(junk, "w").close()
        r = wf.run(["-C", proj, "test", junk], env=env)
        check(r.returncode == 1 and "not a wheel file name" in r.stderr,
              "an invalid wheel name is an error", r.stderr)

        # An empty dist dir: nothing to test.
        shutil.rmtree(dist)
        os.makedirs(dist)
        r = wf.run(["-C", proj, "test"], env=env)
        check(r.returncode == 3 and "no wheels in" in r.stderr, "no wheels exits 3", r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("test_cmd_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
