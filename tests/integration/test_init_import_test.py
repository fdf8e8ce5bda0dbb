#!/usr/bin/env python3
"""A build with no config runs at least an import test of every module it built, and a module
that cannot import fails its cell.

setup.py names no test, so the config the capture writes has `[tool.cuwheel.test] command =
"python -c 'import ...'"` naming each extension module. A fixture (written here) has two C
extensions: `impdemo._ok`, and `impdemo._bad`, whose PyInit raises ImportError ("impdemo-bad:
cannot start here"), as a module linked against a library missing at run time would. `cuwheel
-C COPY build` with no config must:

1. capture setup.py and write the import test into <build-dir>/init/cuwheel.toml, naming both
   modules;
2. build and pack the wheel (both modules in it), then fail the cell at its test: exit 1, the
   cell FAILED, the ImportError's text in the output.

The interpreter is the torch 2.11 venv build/torch-pythons/py3.12 (it has setuptools), first on
PATH; exits 77 without it. Run from the repository root:

    cd build/ci && ctest -R test_init_import_test --output-on-failure
"""
import os
import shutil
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures, write  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")
SKIP = 77

SETUP = """from setuptools import Extension, setup

setup(
    name="impdemo",
    version="0.1",
    packages=["impdemo"],
    ext_modules=[Extension("impdemo._ok", sources=["csrc/ok.c"]),
                 Extension("impdemo._bad", sources=["csrc/bad.c"])],
)
"""
OK_C = """#include <Python.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_ok", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__ok(void) { return PyModule_Create(&def); }
"""
BAD_C = """#include <Python.h>
PyMODINIT_FUNC PyInit__bad(void)
{
	PyErr_SetString(PyExc_ImportError, "impdemo-bad: cannot start here");
	return NULL;
}
"""


def main():
    if not os.path.exists(os.path.join(VENV, "python")):
        print("skip: no torch venv at build/torch-pythons/py3.12 "
              "(examples/torchext/setup-pythons)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="cuwheel-import-test-")
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    env["PATH"] = os.pathsep.join([VENV, env.get("PATH", "")])
    env["CUWHEEL_MATRIX_PYTHON"] = "3.12"
    try:
        proj = os.path.join(tmp, "impdemo")
        write(os.path.join(proj, "setup.py"), SETUP)
        write(os.path.join(proj, "impdemo", "__init__.py"), "")
        write(os.path.join(proj, "csrc", "ok.c"), OK_C)
        write(os.path.join(proj, "csrc", "bad.c"), BAD_C)
        rc, out = run([os.path.join(ROOT, CUWHEEL), "-C", proj, "build", "-j", "1"], env=env)
        print(out[-3000:])
        cfg_path = os.path.join(proj, "build", "cuwheel", "init", "cuwheel.toml")
        cfg = open(cfg_path).read() if os.path.exists(cfg_path) else ""
        check("[tool.cuwheel.test]" in cfg and
              "command = \"python -c 'import impdemo._ok, impdemo._bad'\"" in cfg,
              "the captured config tests the import of both modules (%s)"
              % [line for line in cfg.splitlines() if line.startswith("command")])
        wheels = [os.path.join(d, n) for d, _, ns in os.walk(proj) for n in ns
                  if n.endswith(".whl") and "-cp312-" in n]
        mods = sorted(n for n in zipfile.ZipFile(wheels[0]).namelist() if n.endswith(".so")) \
            if wheels else []
        check(len(mods) == 2 and mods[0].startswith("impdemo/_bad")
              and mods[1].startswith("impdemo/_ok"),
              "the wheel was packed with both modules (%s)" % mods)
        check(rc == 1, "the build exits 1 (got %d)" % rc)
        check("impdemo-bad: cannot start here" in out,
              "the output holds the module's ImportError")
        check(any("cp312" in line and "FAILED" in line for line in out.splitlines()),
              "the cp312 cell is reported FAILED")
    finally:
        if failures:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
