#!/usr/bin/env python3
"""test_config_hardening.py: issue 25's config classes that need a real build (a plain C
extension, CUDA 13.0's cudart, Python 3.12; no kernels, so no nvcc run):

  class 6, stale state: renaming pkg/a.py to pkg/b.py (os.rename keeps the mtime), adding a file
    with an old mtime and removing one each ship exactly the new file list on the next build; a
    wheel in dist/ truncated, or replaced by another project's same-named wheel, is placed again
    (the right bytes back, a note saying why), never reported up to date; an untouched build
    runs no step.
  class 5, placeholders: the test command `python -c "print('{project}')"` is refused at
    file:line:col; with the project at '/tmp/.../proj $(touch CANARY)' the accepted spellings
    ({project} unquoted, $CUWHEEL_PROJECT, $CUWHEEL_WHEEL) run the test with the path as one
    argument, and no canary file is ever created.

Skipped (exit 77) without CUDA 13.0 or Python 3.12."""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", os.path.join(ROOT, "build/ci/cuwheel")))
FAILS = []
PYPROJECT = """[project]
name = "demo"
version = "1.0"
requires-python = ">=3.10"
[tool.cuwheel]
packages = ["pkg"]
[tool.cuwheel.extension]
module = "pkg._C"
sources = ["src/ext.c"]
[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
"""
EXT = """#include <Python.h>
static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&m); }
"""


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name, flush=True)
    if not ok:
        FAILS.append(name)
        print("   " + str(detail)[-2500:].replace("\n", "\n   "))


def project(d, test=None):
    os.makedirs(os.path.join(d, "pkg"))
    os.makedirs(os.path.join(d, "src"))
    with open(os.path.join(d, "pyproject.toml"), "w") as f:
        f.write(PYPROJECT + (f"[tool.cuwheel.test]\ncommand = {test}\n" if test else ""))
    with open(os.path.join(d, "src", "ext.c"), "w") as f:
        f.write(EXT)
    with open(os.path.join(d, "pkg", "__init__.py"), "w") as f:
        f.write("from . import _C\n")
    with open(os.path.join(d, "pkg", "a.py"), "w") as f:
        f.write("A = 1\n")


def run(args, cwd, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    e["NO_COLOR"] = "1"
    e.update(env or {})
    p = subprocess.run([CUWHEEL] + args, cwd=cwd, env=e, capture_output=True, text=True,
                       errors="replace", timeout=900)
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        check(f"no sanitizer report from cuwheel {args[0]}", bad not in p.stderr, p.stderr)
    return p


def the_wheel(d):
    w = glob.glob(os.path.join(d, "dist", "*.whl"))
    return w[0] if len(w) == 1 else None


def members(w):
    with zipfile.ZipFile(w) as z:
        return sorted(n for n in z.namelist() if not n.startswith("demo-1.0"))


def sha(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def steps_run(d, before):
    log = os.path.join(d, "build", "cuwheel", ".ninja_log")
    with open(log) as f:
        f.seek(before)
        return [l.split("\t")[3] for l in f.read().splitlines() if not l.startswith("#")]


def log_size(d):
    try:
        return os.path.getsize(os.path.join(d, "build", "cuwheel", ".ninja_log"))
    except OSError:
        return 0


def stale_state(tmp):
    d = os.path.join(tmp, "stale")
    project(d)
    p = run(["build"], d)
    w = the_wheel(d)
    check("class 6: the first build places one wheel", p.returncode == 0 and w,
          p.stdout + p.stderr)
    if not w:
        return
    check("class 6: it ships pkg/a.py", "pkg/a.py" in members(w), members(w))
    first = sha(w)

    n = log_size(d)
    p = run(["build"], d)
    check("class 6: an untouched build runs no step", p.returncode == 0 and
          steps_run(d, n) == [], p.stdout + p.stderr + str(steps_run(d, n)))

    os.rename(os.path.join(d, "pkg", "a.py"), os.path.join(d, "pkg", "b.py"))
    p = run(["build"], d)
    m = members(the_wheel(d))
    check("class 6: after renaming a.py to b.py (mtime kept) the wheel ships b.py, not a.py",
          p.returncode == 0 and "pkg/b.py" in m and "pkg/a.py" not in m, p.stderr + str(m))

    newf = os.path.join(d, "pkg", "old.py")
    with open(newf, "w") as f:
        f.write("OLD = 1\n")
    os.utime(newf, (1_000_000_000, 1_000_000_000))
    p = run(["build"], d)
    m = members(the_wheel(d))
    check("class 6: a new file with a 2001 mtime is shipped", "pkg/old.py" in m, m)
    os.remove(newf)
    p = run(["build"], d)
    m = members(the_wheel(d))
    check("class 6: a removed file is no longer shipped", "pkg/old.py" not in m, m)

    w = the_wheel(d)
    good = sha(w)
    with open(w, "r+b") as f:
        f.truncate(os.path.getsize(w) // 2)
    p = run(["build"], d)
    check("class 6: a truncated wheel in dist/ is placed again (same bytes as before)",
          p.returncode == 0 and sha(w) == good, p.stdout + p.stderr)
    check("class 6: ... with a note saying why", "is not the wheel this build placed" in p.stderr,
          p.stderr)

    # Another project's wheel of the same name (built from other sources) lands in dist/.
    o = os.path.join(tmp, "other")
    project(o)
    with open(os.path.join(o, "pkg", "a.py"), "w") as f:
        f.write("A = 'other project'\n")
    p = run(["build"], o)
    ow = the_wheel(o)
    check("class 6: the other project builds", p.returncode == 0 and ow, p.stderr)
    if ow:
        check("class 6: the two wheels share a name and differ",
              os.path.basename(ow) == os.path.basename(w) and sha(ow) != good)
        shutil.copyfile(ow, w)
        st = os.stat(w)
        os.utime(w, ns=(st.st_atime_ns, st.st_mtime_ns))
        p = run(["build"], d)
        check("class 6: another project's same-named wheel in dist/ is replaced, not 'up to "
              "date'", p.returncode == 0 and sha(w) == good, p.stdout + p.stderr)
    check("class 6: the first build's wheel differs from the renamed one", first != good)


def placeholders(tmp):
    """The project lives at a path holding $(touch CANARY), `touch CANARY`, quotes and spaces."""
    canary = os.path.join(tmp, "CANARY")
    evil = os.path.join(tmp, f"proj $(touch {canary}) `touch {canary}` 'q\" x")
    seen = os.path.join(tmp, "seen.txt")
    # The spelling: refused where it is written, before anything runs.
    project(evil, test='"python -c \\"print(\'{project}\')\\""')
    p = run(["build"], evil)
    check("class 5: python -c \"print('{project}')\" is refused at pyproject.toml:line:col",
          p.returncode == 1 and "pyproject.toml:14:11: error: test command: {project} stands "
          "inside \"...\"" in p.stderr, p.stdout + p.stderr)
    check("class 5: ... and no canary", not os.path.exists(canary))
    # The accepted spellings: the path as one argument, and read from the environment.
    code = ("import os, sys; open(sys.argv[3], 'a').write(repr((sys.argv[1], sys.argv[2], "
            "os.environ['CUWHEEL_PROJECT'], os.path.basename(os.environ['CUWHEEL_WHEEL'])))"
            " + chr(10))")
    cmd = f'python -c "{code}" {{project}} {{wheel}} {seen} && test -d {{project}}/pkg && ' \
          f'ls {{project}}/pkg >/dev/null && echo $(ls {{project}}) >/dev/null'
    with open(os.path.join(evil, "pyproject.toml"), "w") as f:
        f.write(PYPROJECT)
    with open(os.path.join(evil, "pyproject.toml"), "a") as f:
        f.write("[tool.cuwheel.test]\ncommand = " + chr(39) * 3 + cmd + chr(39) * 3 + "\n")
    p = run(["build"], evil)
    w = the_wheel(evil)
    check("class 5: the build and its test pass with the project at a hostile path",
          p.returncode == 0 and w is not None, p.stdout + p.stderr)
    got = open(seen).read().splitlines() if os.path.exists(seen) else []
    want = repr((evil, w, evil, os.path.basename(w))) if w else None
    check("class 5: {project}, {wheel} and $CUWHEEL_PROJECT reach the command as the exact "
          "paths", got == [want], f"{got} != {[want]}")
    check("class 5: no canary file was ever created", not os.path.exists(canary),
          os.listdir(tmp))


def main():
    if not os.path.exists("/usr/local/cuda-13.0/lib64/libcudart_static.a") and \
            not os.path.exists("/usr/local/cuda/lib64/libcudart_static.a"):
        return testskip.skip_code("no CUDA 13.0")
    if not glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3")) and \
            not shutil.which("python3.12"):
        return testskip.skip_code("no Python 3.12")
    with tempfile.TemporaryDirectory(prefix="cuwheel-cfgh-") as tmp:
        stale_state(tmp)
        placeholders(tmp)
    if FAILS:
        print(f"test_config_hardening: {len(FAILS)} failures")
        return 1
    print("test_config_hardening: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
