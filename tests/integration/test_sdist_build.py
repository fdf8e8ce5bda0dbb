#!/usr/bin/env python3
"""test_sdist_build.py: `cuwheel build SDIST --config FILE` and `-C DIR build --config FILE` end to
end on a small setuptools-style sdist (a C extension module, no kernels: no nvcc needed):

- the wheel's METADATA is the sdist's PKG-INFO byte for byte but for Version (local label);
- the PKG-INFO licence file reaches .dist-info/licenses/; the sdist's dot-file in the package
  ships (as setuptools' include_package_data ships it);
- packages = "find" finds the package; abi-suffix = false names the module demo/_ext.so; a
  second, top-level module (_demo_c, as nvdiffrast's _nvdiffrast_c) lands at the wheel's root;
- pip installs the wheel into a fresh venv and the module imports;
- a second build unpacks nothing and runs nothing; a changed sdist is unpacked again; three
  plans of a new sdist at once agree (the unpack is locked);
- the same tree unpacked by hand, built with -C DIR --config FILE, gives the same METADATA;
- a hostile sdist leaves dist/ as it was.
Needs $CUWHEEL and a Python 3.12 that discovery finds."""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))

PKG_INFO = """Metadata-Version: 2.4
Name: demo-sdist
Version: 2.0.1
Summary:  A demo whose metadata only its sdist knows
Home-page: https://example.org/demo
Download-URL: https://example.org/demo/2.0.1.tar.gz
Keywords: demo,sdist
Requires-Python: >=3.8
License-File: LICENSE
Requires-Dist: numpy
Requires-Dist: typing_extensions; python_version < "3.8"
Provides-Extra: dev
Requires-Dist: pytest==7.1.2; extra == "dev"
Dynamic: summary
Dynamic: requires-dist

Long description
  kept as written.
"""

EXT_C = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_ext", NULL, -1, methods};
PyMODINIT_FUNC PyInit__ext(void) { return PyModule_Create(&mod); }
"""

FILES = {
    "PKG-INFO": PKG_INFO,
    "docs/LICENSE.txt": "MIT License\n",
    "setup.py": "raise SystemExit('cuwheel never runs setup.py')\n",
    "demo/__init__.py": "from ._ext import answer\n",
    "demo/data/table.cuh": "#pragma once\n",
    "demo/data/.keep": "",
    "src/ext.c": EXT_C,
    "src/top.c": EXT_C.replace('"_ext"', '"_demo_c"').replace("PyInit__ext", "PyInit__demo_c"),
}

CONFIG = """[tool.cuwheel]
packages = "find"

[[tool.cuwheel.extension]]
module = "demo._ext"
sources = ["src/ext.c"]
abi-suffix = false

[[tool.cuwheel.extension]]
module = "_demo_c"             # a top-level module, as nvdiffrast's _nvdiffrast_c
sources = ["src/top.c"]

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
"""


def write_sdist(path, files, extra=None):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, text in files.items():
            data = text.encode()
            ti = tarfile.TarInfo("demo_sdist-2.0.1/" + name)
            ti.size = len(data)
            ti.mtime = 0
            t.addfile(ti, io.BytesIO(data))
        # The licence as a symlink inside the tree (issue 25, class 11): packed from its target.
        ti = tarfile.TarInfo("demo_sdist-2.0.1/LICENSE")
        ti.type = tarfile.SYMTYPE
        ti.linkname = "docs/LICENSE.txt"
        t.addfile(ti)
        if extra:
            extra(t)
    with open(path, "wb") as f:
        f.write(gzip.compress(buf.getvalue(), mtime=0))


def tree_of(tmp, sdist):
    """The unpacked tree: build/cuwheel/sdist/<sha256 of the archive>/<top>."""
    with open(sdist, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()
    return os.path.join(tmp, "build", "cuwheel", "sdist", key, "demo_sdist-2.0.1")


def build(args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    env["NO_COLOR"] = "1"
    p = subprocess.run([CUWHEEL] + args, cwd=cwd, env=env, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def wheel_of(dist):
    ws = sorted(f for f in os.listdir(dist) if f.endswith(".whl")) if os.path.isdir(dist) else []
    return [os.path.join(dist, w) for w in ws]


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-sdist-")
    try:
        sdist = os.path.join(tmp, "demo_sdist-2.0.1.tar.gz")
        write_sdist(sdist, FILES)
        with open(os.path.join(tmp, "demo.cuwheel.toml"), "w") as f:
            f.write(CONFIG)
        rc, out = build(["build", "demo_sdist-2.0.1.tar.gz", "--config", "demo.cuwheel.toml",
                         "--no-test", "-j", "2"], tmp)
        print(out[-2500:], flush=True)
        check(rc == 0, "cuwheel build SDIST --config FILE exits 0")
        wheels = wheel_of(os.path.join(tmp, "dist"))
        if not check(len(wheels) == 1 and "demo_sdist-2.0.1+cu130-cp312-cp312-" in wheels[0],
                     "dist/ (beside the config) holds the cp312 wheel: %s" % wheels):
            return 1
        z = zipfile.ZipFile(wheels[0])
        names = z.namelist()
        di = "demo_sdist-2.0.1+cu130.dist-info/"
        meta = z.read(di + "METADATA").decode()
        want = PKG_INFO.replace("Version: 2.0.1\n", "Version: 2.0.1+cu130\n")
        check(meta == want, "METADATA is PKG-INFO byte for byte but Version's local label")
        check(di + "licenses/LICENSE" in names and
              z.read(di + "licenses/LICENSE") == b"MIT License\n",
              "PKG-INFO's License-File (a symlink to docs/LICENSE.txt) shipped in licenses/ "
              "with its target's bytes")
        check("demo/data/.keep" in names and "demo/data/table.cuh" in names,
              "package data shipped, the sdist's dot-file included: %s" %
              [n for n in names if n.startswith("demo/data")])
        check("demo/_ext.so" in names, "abi-suffix = false: demo/_ext.so")
        check("_demo_c.cpython-312-x86_64-linux-gnu.so" in names,
              "a top-level module at the wheel's root: %s" % [n for n in names if "/" not in n])
        check("setup.py" not in names and not any(n.startswith("src/") for n in names),
              "nothing outside the found package (no setup.py, no src/)")

        venv = os.path.join(tmp, "venv")
        # The interpreter the build used (plan --json names it), not a pyenv shim.
        p = subprocess.run([CUWHEEL, "plan", "--json", "demo_sdist-2.0.1.tar.gz", "--config",
                            "demo.cuwheel.toml"], cwd=tmp, capture_output=True, text=True)
        py312 = json.loads(p.stdout)["matrix"]["cells"][0]["interpreter"]
        subprocess.run([py312, "-m", "venv", venv], check=True)
        p = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "--no-deps",
                            wheels[0]], capture_output=True, text=True)
        check(p.returncode == 0, "pip installs the wheel into a fresh venv " + p.stderr[-300:])
        p = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                            "import demo, _demo_c; print(demo.answer() * (_demo_c.answer() == 42))"],
                           cwd=tmp,
                           capture_output=True, text=True)
        check(p.stdout.strip() == "42", "import demo, _demo_c: both modules answer 42 (%r)" %
              (p.stdout + p.stderr)[-300:])

        tree = tree_of(tmp, sdist)
        before = os.stat(os.path.join(tree, "PKG-INFO")).st_mtime_ns
        rc, out = build(["build", "demo_sdist-2.0.1.tar.gz", "--config", "demo.cuwheel.toml",
                         "--no-test", "-n"], tmp)
        check(rc == 0 and os.stat(os.path.join(tree, "PKG-INFO")).st_mtime_ns == before,
              "a second build does not unpack the same sdist again")
        p = subprocess.run(["ninja", "-C", os.path.join(tmp, "build", "cuwheel"), "-n"],
                           capture_output=True, text=True)
        check("no work to do" in p.stdout, "and ninja has no work to do: %r" % p.stdout[-200:])

        files2 = dict(FILES, **{"demo/__init__.py": "from ._ext import answer\nX = 1\n"})
        write_sdist(sdist, files2)
        tree = tree_of(tmp, sdist)
        rc, out = build(["build", "demo_sdist-2.0.1.tar.gz", "--config", "demo.cuwheel.toml",
                         "--no-test"], tmp)
        check(rc == 0 and "X = 1" in open(os.path.join(tree, "demo", "__init__.py")).read(),
              "a changed sdist is unpacked again and built")

        # Two plans of a new sdist at once: one unpacks (under a lock), the other finds it.
        files3 = dict(FILES, **{"demo/__init__.py": "from ._ext import answer\nY = 2\n"})
        write_sdist(sdist, files3)
        tree = tree_of(tmp, sdist)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
        procs = [subprocess.Popen([CUWHEEL, "plan", "demo_sdist-2.0.1.tar.gz", "--config",
                                   "demo.cuwheel.toml"], cwd=tmp, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for _ in range(3)]
        outs = [p.communicate()[0] for p in procs]
        check(all(p.returncode == 0 for p in procs) and
              "Y = 2" in open(os.path.join(tree, "demo", "__init__.py")).read() and
              not [n for n in os.listdir(os.path.dirname(os.path.dirname(tree)))
                   if n.startswith((".unpack-", ".old-"))],
              "three plans of a new sdist at once all succeed, one tree, no leftovers (%s)" %
              [o.strip()[-120:] for p, o in zip(procs, outs) if p.returncode])

        # The same tree unpacked elsewhere, built with -C DIR --config FILE.
        by_hand = os.path.join(tmp, "by-hand")
        with tarfile.open(sdist) as t:
            t.extractall(by_hand, filter="data")
        rc, out = build(["-C", os.path.join(by_hand, "demo_sdist-2.0.1"), "build", "--config",
                         os.path.join(tmp, "demo.cuwheel.toml"), "--no-test"], tmp)
        print(out[-800:])
        check(rc == 0, "cuwheel -C DIR build --config FILE exits 0")
        w2 = wheel_of(os.path.join(tmp, "dist"))
        check(len(w2) == 1 and zipfile.ZipFile(w2[0]).read(di + "METADATA").decode() == want,
              "-C DIR --config FILE: the same METADATA, the wheel in the config's dist/")

        # A hostile sdist: refused, dist/ as it was.
        listing = sorted(os.listdir(os.path.join(tmp, "dist")))

        def evil(t):
            ti = tarfile.TarInfo("demo_sdist-2.0.1/../../escape")
            ti.size = 1
            t.addfile(ti, io.BytesIO(b"x"))
        bad = os.path.join(tmp, "bad", "demo_sdist-2.0.1.tar.gz")
        os.makedirs(os.path.dirname(bad))
        write_sdist(bad, FILES, extra=evil)
        rc, out = build(["build", bad, "--config", "demo.cuwheel.toml", "--no-test"], tmp)
        check(rc == 1 and "its path has a '..' component" in out,
              "a sdist with ../ is refused: %s" % out.strip()[-200:])
        check(sorted(os.listdir(os.path.join(tmp, "dist"))) == listing and
              not os.path.exists(os.path.join(tmp, "escape")) and
              not os.path.exists(os.path.join(tmp, "build", "escape")),
              "dist/ as it was, nothing written outside")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
