#!/usr/bin/env python3
"""test_valgrind_units.py: every cmocka unit test binary (tests/test_* beside $CUWHEEL's build
dir) runs under `valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
--error-exitcode=1`: no invalid read/write, no use of uninitialised memory, no definite or
indirect leak. Skipped (exit 77, testskip.py) when valgrind is missing or $CUWHEEL is an ASan build
(the two cannot run together; the ASan preset covers that configuration). The unit tests run in
parallel, two at a time."""
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/hard/cuwheel"))


def is_asan(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def run(t):
    p = subprocess.run(["valgrind", "-q", "--leak-check=full",
                        "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99",
                        "--track-origins=yes", t], cwd=ROOT, capture_output=True, text=True,
                       timeout=900)
    return t, p


def main():
    if not shutil.which("valgrind"):
        return testskip.skip_code("valgrind is not installed", ci_installs="valgrind")
    if is_asan(CUWHEEL):
        return testskip.skip_code("$CUWHEEL is an ASan build (valgrind and ASan do not mix)")
    tests = sorted(glob.glob(os.path.join(os.path.dirname(CUWHEEL), "tests", "test_*")))
    tests = [t for t in tests if os.access(t, os.X_OK) and not t.endswith((".c", ".o"))]
    if not tests:
        print(f"FAIL: no unit test binaries beside {CUWHEEL}")
        return 1
    bad = []
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        for t, p in ex.map(run, tests):
            name = os.path.basename(t)
            if p.returncode == 99:
                bad.append(name)
                print(f"FAIL {name}: valgrind reports errors or leaks\n" + p.stderr[-4000:])
            elif p.returncode != 0:
                bad.append(name)
                print(f"FAIL {name}: exit {p.returncode} under valgrind\n" + p.stderr[-2000:]
                      + p.stdout[-2000:])
            else:
                print(f"ok   {name}")
    if bad:
        print(f"{len(bad)} of {len(tests)} unit tests fail under valgrind: {', '.join(bad)}")
        return 1
    print(f"{len(tests)} unit test binaries clean under valgrind (no errors, no leaks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
