"""testskip: how an integration test says it did not run (the convention of every script test).

A test that cannot run exits with SKIP (77); tests/CMakeLists.txt sets SKIP_RETURN_CODE 77 on
every test, so CTest reports it as "Skipped", never as passed. When what is missing is something
CI installs (tools/install-deps: valgrind, chromium, redis-server, ccache, ...) and
CUWHEEL_CI_NO_SKIP=1 is set (tools/test sets it), the skip is a failure instead (exit 1): CI must
not pass with a test that did not run. Missing things CI does not install (nvcc, the pyenv
Pythons, root) stay skips everywhere."""
import os
import sys

SKIP = 77


def skip_code(reason, ci_installs=None):
    """Prints why the test (or part of it) did not run; returns the exit code to end with:
    SKIP, or 1 when ci_installs names a package of tools/install-deps and CUWHEEL_CI_NO_SKIP=1."""
    if ci_installs and os.environ.get("CUWHEEL_CI_NO_SKIP") == "1":
        print(f"FAIL: {reason}, and CI installs {ci_installs} (tools/install-deps): with "
              f"CUWHEEL_CI_NO_SKIP=1 this skip is a failure", flush=True)
        return 1
    print(f"skipped: {reason}", flush=True)
    return SKIP


def skip(reason, ci_installs=None):
    """skip_code, then exits with it."""
    sys.exit(skip_code(reason, ci_installs))
