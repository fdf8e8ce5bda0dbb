#!/usr/bin/env python3
"""test_pack.py: `cuwheel pack` end to end: a real compiled extension module packed per Python
3.10-3.13 and checked by every validator (pip install + import, pypa/installer with RECORD
validation, twine check --strict, check-wheel-contents, wheel unpack, packaging), the PyPI zip
rules, reproducibility (mtimes, umask, creation order), refusals, and atomicity under signals.
Needs $CUWHEEL; the validators come from build/venv (tools/test-venv creates it)."""
import glob
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import pypi_zip_check  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/pack/cuwheel"))
FAILS = []

PYPROJECT = """\
[project]
name = "Demo_Pkg.CUDA"
version = "1.2.0"
description = "A demo of cuwheel pack"
readme = "README.md"
requires-python = ">=3.10"
license = "MIT"
license-files = ["LICENSE", "licenses/THIRD_PARTY.txt"]
authors = [{name = "Ann Dev", email = "ann@example.com"}, {name = "Bob Only"},
           {email = "team@example.com"}]
maintainers = [{name = "Jane Q. Doe", email = "jane@example.com"}]
keywords = ["cuda", "wheel"]
classifiers = ["Programming Language :: Python :: 3", "Operating System :: POSIX :: Linux"]
dependencies = ["numpy>=1.24; python_version < '3.13'", "packaging"]
[project.optional-dependencies]
test = ["pytest>=7", "hypothesis; sys_platform == 'linux'"]
[project.urls]
Homepage = "https://example.com"
"Bug Tracker" = "https://example.com/issues"
[project.scripts]
demo-cli = "demo.cli:main"
[project.gui-scripts]
demo-gui = "demo.cli:gui"
[project.entry-points."demo.plugins"]
basic = "demo.cli:plugin"
[tool.cuwheel]
packages = ["demo"]
[tool.cuwheel.extension]
module = "demo._C"
sources = ["src/ext.c"]
"""

EXT_C = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *add(PyObject *self, PyObject *args)
{
	long a, b;
	if (!PyArg_ParseTuple(args, "ll", &a, &b))
		return NULL;
	return PyLong_FromLong(a + b);
}
static PyMethodDef methods[] = {{"add", add, METH_VARARGS, "a + b"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, methods};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&mod); }
"""


def venv_python():
    p = os.path.join(ROOT, "build", "venv", "bin", "python")
    if not os.path.exists(p):
        p = subprocess.run([os.path.join(ROOT, "tools", "test-venv")], check=True,
                           capture_output=True, text=True).stdout.strip()
    return p


def pythons():
    out = []
    for minor in (10, 11, 12, 13):
        c = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.%d*/bin/python3" % minor)))
        if c:
            out.append((minor, c[-1]))
    return out


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def check(name, cond, detail=""):
    if not cond:
        FAILS.append("%s: %s" % (name, detail))
        print("FAIL", name, detail)
    return cond


def make_project(tmp):
    proj = os.path.join(tmp, "proj")
    os.makedirs(os.path.join(proj, "demo"))
    os.makedirs(os.path.join(proj, "src"))
    os.makedirs(os.path.join(proj, "licenses"))
    open(os.path.join(proj, "pyproject.toml"), "w").write(PYPROJECT)
    open(os.path.join(proj, "README.md"), "w").write("# Demo\n\nA *demo* package, café.\n")
    open(os.path.join(proj, "LICENSE"), "w").write("MIT License\n")
    open(os.path.join(proj, "licenses", "THIRD_PARTY.txt"), "w").write("third party\n")
    open(os.path.join(proj, "demo", "__init__.py"), "w").write("")
    open(os.path.join(proj, "src", "ext.c"), "w").write(EXT_C)
    return proj


def stage_for(tmp, proj, py, tag):
    """A staged tree with the package and its extension compiled against py's headers."""
    stage = os.path.join(tmp, "stage-" + tag)
    pkg = os.path.join(stage, "demo")
    os.makedirs(pkg)
    open(os.path.join(pkg, "__init__.py"), "w").write("from ._C import add\n")
    open(os.path.join(pkg, "cli.py"), "w").write(
        "def main():\n    print('hi')\ndef gui():\n    pass\ndef plugin():\n    pass\n")
    open(os.path.join(pkg, "données.txt"), "w").write("utf-8 name\n")
    info = run([py, "-c", "import sysconfig;print(sysconfig.get_paths()['include']);"
                "print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.split("\n")
    so = os.path.join(pkg, "_C" + info[1])
    r = run(["gcc", "-shared", "-fPIC", "-O2", "-I" + info[0], os.path.join(proj, "src", "ext.c"),
             "-o", so])
    check("compile " + tag, r.returncode == 0, r.stderr)
    return stage


def pack(proj, stage, tag, out, *extra, env=None):
    return run([CUWHEEL, "-C", proj, "pack", stage, "--tag", tag, "--local", "cu130", "-o", out]
               + list(extra), env=env)


def zip_rules(whl):
    probs = pypi_zip_check.check(whl)
    check("pypi zip rules " + os.path.basename(whl), not probs, "; ".join(probs))


def test_validators(tmp, proj, vpy):
    out = os.path.join(tmp, "dist")
    for minor, py in pythons():
        tag = "cp3%d-cp3%d-linux_x86_64" % (minor, minor)
        stage = stage_for(tmp, proj, py, tag)
        r = pack(proj, stage, tag, out)
        if not check("pack " + tag, r.returncode == 0, r.stderr):
            continue
        whl = r.stdout.strip()
        check("name " + tag, os.path.basename(whl) ==
              "demo_pkg_cuda-1.2.0+cu130-%s.whl" % tag, whl)
        zip_rules(whl)
        # pip into a fresh venv of that Python, then import and call the extension.
        venv = os.path.join(tmp, "venv%d" % minor)
        run([py, "-m", "venv", venv], check=True)
        r = run([venv + "/bin/python", "-m", "pip", "install", "-q", "--no-index", "--no-deps", whl])
        check("pip install " + tag, r.returncode == 0, r.stderr)
        r = run([venv + "/bin/python", "-c", "import demo; assert demo.add(2, 3) == 5; print('ok')"],
                cwd=tmp)
        check("import " + tag, r.stdout.strip() == "ok", r.stderr)
        check("console script " + tag, os.path.exists(venv + "/bin/demo-cli"))
        r = run([venv + "/bin/demo-cli"])
        check("console script runs " + tag, r.stdout.strip() == "hi", r.stderr)
    whls = sorted(glob.glob(os.path.join(out, "*.whl")))
    check("four wheels", len(whls) == len(pythons()), str(whls))
    whl = whls[-1]
    # pypa/installer with RECORD validation (contents too).
    code = ("import sys\n"
            "from installer import install\n"
            "from installer.destinations import SchemeDictionaryDestination\n"
            "from installer.sources import WheelFile\n"
            "d = sys.argv[2]\n"
            "scheme = {k: d + '/' + k for k in ('purelib','platlib','headers','scripts','data')}\n"
            "with WheelFile.open(sys.argv[1]) as src:\n"
            "    src.validate_record(validate_contents=True)\n"
            "    install(src, SchemeDictionaryDestination(scheme, sys.executable, 'posix'), {})\n"
            "print('ok')\n")
    r = run([vpy, "-c", code, whl, os.path.join(tmp, "installer")])
    check("installer validate_record", r.stdout.strip() == "ok", r.stderr)
    r = run([vpy, "-m", "twine", "check", "--strict", whl])
    check("twine check --strict", r.returncode == 0, r.stdout + r.stderr)
    r = run([vpy, "-m", "check_wheel_contents", whl])
    check("check-wheel-contents", r.returncode == 0, r.stdout + r.stderr)
    r = run([vpy, "-m", "wheel", "unpack", "-d", os.path.join(tmp, "unpacked"), whl])
    check("wheel unpack", r.returncode == 0, r.stderr)
    unpacked = glob.glob(os.path.join(tmp, "unpacked", "*", "demo", "cli.py"))
    check("wheel unpack modes", unpacked and (os.stat(unpacked[0]).st_mode & 0o777) == 0o644,
          str(unpacked))
    code = ("import sys, zipfile\n"
            "from packaging.utils import parse_wheel_filename\n"
            "from packaging.metadata import Metadata\n"
            "n, v, b, t = parse_wheel_filename(sys.argv[1].rsplit('/', 1)[-1])\n"
            "z = zipfile.ZipFile(sys.argv[1])\n"
            "raw = z.read('demo_pkg_cuda-%s.dist-info/METADATA' % v)\n"
            "m = Metadata.from_email(raw, validate=True)\n"
            "assert str(m.version) == str(v) == '1.2.0+cu130', (m.version, v)\n"
            "assert m.license_expression == 'MIT'\n"
            "assert [str(x) for x in m.license_files] == ['LICENSE', 'licenses/THIRD_PARTY.txt']\n"
            "assert m.provides_extra == ['test']\n"
            "assert len(m.requires_dist) == 4, m.requires_dist\n"
            "assert m.project_urls['Bug Tracker'] == 'https://example.com/issues'\n"
            "assert m.description_content_type == 'text/markdown'\n"
            "print('ok')\n")
    r = run([vpy, "-c", code, whl])
    check("packaging parses name and validates METADATA", r.stdout.strip() == "ok",
          r.stdout + r.stderr)


def tree(root, files, order, mtime, umask):
    """Creates files {rel: (data, exec)} in the given order with the given umask and mtimes."""
    old = os.umask(umask)
    try:
        for rel in order:
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(files[rel][0])
            if files[rel][1]:
                os.chmod(p, 0o777 & ~umask)
            os.utime(p, (mtime, mtime))
    finally:
        os.umask(old)


def test_reproducible(tmp, proj):
    rnd = random.Random(7)
    files = {
        "demo/__init__.py": (b"x = 1\n", False),
        "demo/run.sh": (b"#!/bin/sh\necho hi\n", True),
        "demo/sub/data.bin": (bytes(rnd.getrandbits(8) for _ in range(3 << 20)), False),
        "demo/sub/zz.txt": (b"z" * 5000, False),
        "demo/a/b/c/deep.txt": (b"deep\n", False),
        "demo/_C.so": (b"\x7fELF" + bytes(rnd.getrandbits(4) for _ in range(2500000)), True),
    }
    names = sorted(files)
    a, b = os.path.join(tmp, "rep-a"), os.path.join(tmp, "rep-b")
    tree(a, files, names, 1000000000, 0o022)
    tree(b, files, list(reversed(names)), 1700000000, 0o077)
    outs = []
    for i, st in enumerate((a, b)):
        env = dict(os.environ, SOURCE_DATE_EPOCH="1600000000")
        r = pack(proj, st, "cp312-cp312-linux_x86_64", os.path.join(tmp, "rep-out%d" % i),
                 env=env)
        check("pack reproducible %d" % i, r.returncode == 0, r.stderr)
        outs.append(r.stdout.strip())
    check("byte-identical wheels (mtimes, umask, creation order)",
          open(outs[0], "rb").read() == open(outs[1], "rb").read(),
          "cmp %s %s" % tuple(outs))
    run(["cmp", outs[0], outs[1]])
    for o in outs:
        zip_rules(o)
    with zipfile.ZipFile(outs[0]) as z:
        infos = z.infolist()
        names_in = [i.filename for i in infos]
        check("sorted, dist-info last", names_in[:len(files)] == names, str(names_in))
        check("RECORD last", names_in[-1].endswith(".dist-info/RECORD"))
        check("timestamps from SOURCE_DATE_EPOCH",
              all(i.date_time == (2020, 9, 13, 12, 26, 40) for i in infos),
              str({i.date_time for i in infos}))
        modes = {i.filename: i.external_attr >> 16 for i in infos}
        check("modes", modes["demo/run.sh"] == 0o100755 and modes["demo/_C.so"] == 0o100755 and
              modes["demo/__init__.py"] == 0o100644, str(modes))
    # The payload the thread count cannot change: -j1 and -j4 give the same bytes.
    r = pack(proj, a, "cp312-cp312-linux_x86_64", os.path.join(tmp, "rep-j1"), "-j", "1",
             env=dict(os.environ, SOURCE_DATE_EPOCH="1600000000"))
    check("-j1 same bytes", open(r.stdout.strip(), "rb").read() == open(outs[0], "rb").read())
    zip_rules(r.stdout.strip())
    # No SOURCE_DATE_EPOCH: 1980-01-01; before 1980: clamped; stored (level 0) passes the rules.
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    r = pack(proj, a, "cp312-cp312-linux_x86_64", os.path.join(tmp, "rep-default"), env=env)
    zip_rules(r.stdout.strip())
    with zipfile.ZipFile(r.stdout.strip()) as z:
        check("default timestamp 1980", {i.date_time for i in z.infolist()} ==
              {(1980, 1, 1, 0, 0, 0)})
    env["SOURCE_DATE_EPOCH"] = "0"
    r = pack(proj, a, "cp312-cp312-linux_x86_64", os.path.join(tmp, "rep-clamp"), env=env)
    zip_rules(r.stdout.strip())
    with zipfile.ZipFile(r.stdout.strip()) as z:
        check("clamped to 1980", {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)})
    r = pack(proj, a, "cp312-cp312-linux_x86_64", os.path.join(tmp, "rep-stored"),
             "--compression", "0")
    w = r.stdout.strip()
    zip_rules(w)
    with zipfile.ZipFile(w) as z:
        check("stored", {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED})
        check("stored reads back", z.testzip() is None)
    r = pack(proj, a, "cp312-cp312-linux_x86_64", os.path.join(tmp, "rep-9"), "--compression",
             "9", "--build", "7", "--purelib")
    w = r.stdout.strip()
    zip_rules(w)
    check("build tag in name", "-1.2.0+cu130-7-cp312" in w, w)
    with zipfile.ZipFile(w) as z:
        wheel = z.read([n for n in z.namelist() if n.endswith("/WHEEL")][0]).decode()
        check("WHEEL build + purelib", "Build: 7\n" in wheel and "Root-Is-Purelib: true" in wheel,
              wheel)


def test_refusals(tmp, proj):
    st = os.path.join(tmp, "bad-stage")
    os.makedirs(os.path.join(st, "demo"))
    open(os.path.join(st, "demo", "x.py"), "w").write("")
    os.symlink("x.py", os.path.join(st, "demo", "link.py"))
    out = os.path.join(tmp, "bad-out")
    r = pack(proj, st, "cp312-cp312-linux_x86_64", out)
    check("symlink refused", r.returncode == 1 and "symbolic link" in r.stderr, r.stderr)
    check("nothing written on refusal", not os.listdir(out) if os.path.isdir(out) else True,
          str(os.listdir(out)) if os.path.isdir(out) else "")
    os.unlink(os.path.join(st, "demo", "link.py"))
    os.makedirs(os.path.join(st, "demo_pkg_cuda-1.2.0.dist-info"))
    open(os.path.join(st, "demo_pkg_cuda-1.2.0.dist-info", "METADATA"), "w").write("")
    r = pack(proj, st, "cp312-cp312-linux_x86_64", out)
    check("staged dist-info refused", r.returncode == 1 and ".dist-info" in r.stderr, r.stderr)
    r = run([CUWHEEL, "-C", proj, "pack", st, "--tag", "cp312-linux_x86_64"])
    check("bad --tag is a usage error", r.returncode == 2, r.stderr)
    r = run([CUWHEEL, "pack", "--help"])
    check("pack --help", r.returncode == 0 and "usage: cuwheel pack" in r.stdout)


def test_atomic(tmp, proj):
    """SIGTERM/SIGINT mid-write leave nothing; SIGKILL leaves only a hidden temp file that the
    next pack of that wheel removes; an existing wheel is never touched by a failed run."""
    st = os.path.join(tmp, "big-stage")
    os.makedirs(os.path.join(st, "demo"))
    rnd = random.Random(3)
    block = bytes(rnd.getrandbits(8) for _ in range(1 << 20))
    with open(os.path.join(st, "demo", "big.bin"), "wb") as f:
        for i in range(160):
            f.write(block[i % 7:] + block[:i % 7])
    out = os.path.join(tmp, "atomic-out")
    os.makedirs(out)
    tag = "cp312-cp312-linux_x86_64"
    good = pack(proj, st, tag, out, "-j", "1")
    check("big pack", good.returncode == 0, good.stderr)
    whl = good.stdout.strip()
    digest = hashlib.sha256(open(whl, "rb").read()).hexdigest()
    t0 = time.time()
    pack(proj, st, tag, os.path.join(tmp, "timing"), "-j", "1")
    dur = time.time() - t0
    for i, sig in enumerate((signal.SIGTERM, signal.SIGINT, signal.SIGTERM, signal.SIGKILL,
                             signal.SIGKILL)):
        # Signal once the temp file exists (the write is under way), at a varying point of it.
        # A pack that still wins the race must have written the complete, identical wheel; the
        # trial is then repeated with an earlier signal.
        for attempt in range(4):
            before = set(os.listdir(out))
            p = subprocess.Popen([CUWHEEL, "-C", proj, "pack", st, "--tag", tag, "--local",
                                  "cu130", "-o", out, "-j", "1"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            deadline = time.time() + 10 * dur + 10
            while p.poll() is None and time.time() < deadline:
                if any(n.startswith(".") and n not in before for n in os.listdir(out)):
                    break
                time.sleep(0.005)
            time.sleep(dur * (0.05 + 0.1 * i) / (attempt + 1))
            p.send_signal(sig)
            p.wait()
            if p.returncode != 0:
                break
            check("a pack that beat signal %d wrote the identical wheel" % i,
                  hashlib.sha256(open(whl, "rb").read()).hexdigest() == digest)
        check("killed mid-write %d" % i, p.returncode != 0, "exit %s" % p.returncode)
        left = sorted(os.listdir(out))
        check("existing wheel untouched %d" % i,
              hashlib.sha256(open(whl, "rb").read()).hexdigest() == digest)
        temps = [n for n in left if n.startswith(".")]
        if sig == signal.SIGKILL:
            check("SIGKILL leaves at most a hidden temp %d" % i,
                  left == sorted([os.path.basename(whl)] + temps) and len(temps) <= i - 2,
                  str(left))
        else:
            check("signal %d leaves nothing" % sig, left == [os.path.basename(whl)], str(left))
    r = pack(proj, st, tag, out, "-j", "1")
    check("pack after SIGKILL", r.returncode == 0, r.stderr)
    check("stale temp files swept", os.listdir(out) == [os.path.basename(whl)],
          str(os.listdir(out)))
    zip_rules(whl)


def main():
    vpy = venv_python()
    tmp = tempfile.mkdtemp(prefix="cuwheel-pack-")
    try:
        proj = make_project(tmp)
        for t in (test_validators, test_reproducible, test_refusals, test_atomic):
            print("==", t.__name__, flush=True)
            if t is test_validators:
                t(tmp, proj, vpy)
            else:
                t(tmp, proj)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print("\n%d failure(s):\n  " % len(FAILS) + "\n  ".join(FAILS))
        return 1
    print("all pack checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
