#!/usr/bin/env python3
"""test_skips: a test that cannot run says so to CTest (exit 77, SKIP_RETURN_CODE) instead of
passing, and CUWHEEL_CI_NO_SKIP=1 (set by tools/test) turns a skip for want of something CI installs
into a failure (issue 19, class 10). Table-driven: each case runs a real test script with an
environment that takes its tool away, and checks the exit code and what it prints; the last case
runs CTest itself and checks that it reports the test as skipped, not passed."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", os.path.join(ROOT, "build/ci/cuwheel")))
VALGRIND = os.path.join(ROOT, "tests", "integration", "test_valgrind_units.py")
FAILS = []


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name, flush=True)
    if not ok:
        FAILS.append(name)
        print(detail[-2000:])


def path_without(tmp, tools):
    """A PATH of one directory linking every program of $PATH except tools."""
    d = os.path.join(tmp, "bin")
    os.makedirs(d)
    for p in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(p):
            continue
        for n in os.listdir(p):
            dst = os.path.join(d, n)
            if n not in tools and not os.path.lexists(dst):
                os.symlink(os.path.join(p, n), dst)
    return d


def main():
    with tempfile.TemporaryDirectory(prefix="cuwheel-skips-") as tmp:
        empty = path_without(tmp, {"valgrind"})
        check("the PATH without valgrind has no valgrind",
              shutil.which("valgrind", path=empty) is None, empty)
        fake_asan = os.path.join(tmp, "cuwheel")
        with open(fake_asan, "wb") as f:
            f.write(b"\x7fELF an ASan build holds __asan_init\n")
        base = {k: v for k, v in os.environ.items() if k != "CUWHEEL_CI_NO_SKIP"}
        # (name, script, env overrides, exit code, text in the output)
        cases = [
            ("no valgrind: skipped (77), not passed", VALGRIND, {"PATH": empty}, 77,
             "skipped: valgrind is not installed"),
            ("no valgrind under CUWHEEL_CI_NO_SKIP=1: a failure (CI installs it)", VALGRIND,
             {"PATH": empty, "CUWHEEL_CI_NO_SKIP": "1"}, 1, "CI installs valgrind"),
            ("CUWHEEL_CI_NO_SKIP=0 is not set: still a skip", VALGRIND,
             {"PATH": empty, "CUWHEEL_CI_NO_SKIP": "0"}, 77, "skipped: valgrind"),
            ("an ASan cuwheel: skipped (valgrind cannot run it) even under NO_SKIP", VALGRIND,
             {"CUWHEEL": fake_asan, "CUWHEEL_CI_NO_SKIP": "1"}, 77, "is an ASan build"),
        ]
        for name, script, over, want_rc, want_text in cases:
            env = dict(base, **over)
            p = subprocess.run([sys.executable, script], env=env, cwd=ROOT,
                               capture_output=True, text=True, timeout=600)
            out = p.stdout + p.stderr
            check(f"{name}: exit {p.returncode}", p.returncode == want_rc and want_text in out,
                  out)
        ctest = shutil.which("ctest")
        build_dir = os.path.dirname(CUWHEEL)
        if ctest and os.path.isfile(os.path.join(build_dir, "CTestTestfile.cmake")):
            env = dict(base, PATH=empty)
            p = subprocess.run([ctest, "-R", "^integration.test_valgrind_units$"], cwd=build_dir,
                               env=env, capture_output=True, text=True, timeout=600)
            out = p.stdout + p.stderr
            check("CTest reports the skipped test as Skipped, not Passed",
                  p.returncode == 0 and "Skipped" in out and "Passed" not in out, out)
        else:
            check("CTest's build dir beside $CUWHEEL", False, build_dir)
    print(f"test_skips: {len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
