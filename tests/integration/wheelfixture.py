"""wheelfixture: small real wheels (pure Python + a C extension compiled with gcc) for the
integration tests of `cuwheel test` and `cuwheel index`, written with zipfile."""
import base64
import glob
import hashlib
import os
import subprocess
import sys
import zipfile

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ti", "cuwheel")
CACHE = os.path.join(ROOT, "build", "test-cache")

EXT_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args)
{
	return PyLong_FromLong(ANSWER);
}
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_c", NULL, -1, methods};
PyMODINIT_FUNC PyInit__c(void)
{
	return PyModule_Create(&mod);
}
"""


def pythons():
    """{"3.10": path, ...} for the pyenv CPythons 3.10-3.13 this machine has."""
    out = {}
    for minor in (10, 11, 12, 13):
        cands = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/python3")))
        cands = [c for c in cands if not c.split("/")[-3].endswith("t")]
        if cands:
            out[f"3.{minor}"] = cands[-1]
    return out


def py_info(py):
    code = ("import sysconfig, sys; print(sysconfig.get_paths()['include']); "
            "print(sysconfig.get_config_var('EXT_SUFFIX')); print(sys.version.split()[0])")
    inc, suffix, ver = subprocess.check_output([py, "-c", code], text=True).split("\n")[:3]
    return inc, suffix, ver


def build_ext(py, out_dir, answer=42, abi3=False):
    """Compiles the _c extension for interpreter py; returns (filename, bytes)."""
    inc, suffix, _ = py_info(py)
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(out_dir, "_c.c")
    with open(src, "w") as f:
        f.write(EXT_SOURCE)
    name = "_c" + (".abi3.so" if abi3 else suffix)
    out = os.path.join(out_dir, name)
    cmd = ["gcc", "-shared", "-fPIC", "-O1", f"-DANSWER={answer}", "-I", inc, src, "-o", out]
    if abi3:
        cmd.insert(1, "-DPy_LIMITED_API=0x030a0000")
    subprocess.run(cmd, check=True)
    with open(out, "rb") as f:
        return name, f.read()


def _b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def make_wheel(out_dir, name, version, tag, files, requires_python=None, requires=(),
               filename=None):
    """Writes a valid wheel: files maps archive names to bytes; tag is "py-abi-plat"."""
    dist = name.replace("-", "_")
    di = f"{dist}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    if requires_python:
        meta += f"Requires-Python: {requires_python}\n"
    for r in requires:
        meta += f"Requires-Dist: {r}\n"
    py, abi, plat = tag.split("-")
    wheel = (f"Wheel-Version: 1.0\nGenerator: wheelfixture\nRoot-Is-Purelib: false\n"
             f"Tag: {tag}\n")
    members = dict(files)
    members[f"{di}/METADATA"] = meta.encode()
    members[f"{di}/WHEEL"] = wheel.encode()
    record = ""
    for n, data in members.items():
        record += f"{n},sha256={_b64(hashlib.sha256(data).digest())},{len(data)}\n"
    record += f"{di}/RECORD,,\n"
    members[f"{di}/RECORD"] = record.encode()
    os.makedirs(out_dir, exist_ok=True)
    fn = filename or f"{dist}-{version}-{tag}.whl"
    path = os.path.join(out_dir, fn)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in members.items():
            zi = zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return path


def ext_wheel(out_dir, work, name, version, py, answer=42, abi3=False, plat="linux_x86_64",
              requires_python=None):
    """A wheel of package `name` (pure __init__ + the _c extension built for py)."""
    inc, suffix, ver = py_info(py)
    major, minor = ver.split(".")[:2]
    ext, data = build_ext(py, os.path.join(work, f"{name}-{version}-{ver}-{answer}-{abi3}"),
                          answer, abi3)
    pkg = name.replace("-", "_")
    files = {
        f"{pkg}/__init__.py": b"from . import _c\n__version__ = %r\n" % version,
        f"{pkg}/{ext}": data,
    }
    tag = f"cp{major}{minor}-{'abi3' if abi3 else f'cp{major}{minor}'}-{plat}"
    return make_wheel(out_dir, name, version, tag, files, requires_python)


def pytest_links():
    """A find-links dir holding pytest and its dependencies, downloaded once (with 3.10's pip,
    which also fetches the backports older Pythons need)."""
    d = os.path.join(CACHE, "pytest-links")
    if glob.glob(os.path.join(d, "pytest-*.whl")) and glob.glob(os.path.join(d, "tomli-*.whl")):
        return d
    py = pythons().get("3.10") or sys.executable
    subprocess.run([py, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                    "--only-binary", ":all:", "-d", d, "pytest", "tomli", "exceptiongroup"],
                   check=True)
    return d


def run(args, **kw):
    """Runs cuwheel with args; returns CompletedProcess with text output."""
    return subprocess.run([CUWHEEL] + list(args), capture_output=True, text=True, **kw)
