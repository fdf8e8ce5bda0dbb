"""test_python_install: `cuwheel python install|list|remove` with a real CPython 3.14 from
Debian's archive, into a temporary cache.

First what is refused without touching the network (a free-threaded build, an unpinned
version, a bad command, removing what is not installed, a cache path an rpath cannot carry, no
patchelf on PATH), then, against deb.debian.org: a pin the archive no longer carries (says to
regenerate the lock), a .deb whose sha256 differs from the lock's, an install SIGKILLed midway
(leaves nothing discovery or `list` would take), the install itself (the interpreter runs as
the pinned release with ssl; a venv made with `python -m venv` has pip; a C extension compiled
with the host's gcc against the root's headers imports; /etc/apt and dpkg's database are
unchanged), a second install doing nothing, discovery finding it (`cuwheel doctor`, found by
cuwheel), `list --json` recording the lock's packages and sha256, and `remove`.

Needs deb.debian.org (about 26 MB of .debs and sid's 11 MB index; 40 s to 4 min here under
load) or skips (77); patchelf, apt-get and dpkg-deb are CI's (a skip for want of them fails
under CUWHEEL_CI_NO_SKIP=1)."""
import glob
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures, run  # noqa: E402
from testskip import skip  # noqa: E402

CW = os.environ["CUWHEEL"]
SRC = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
LOCK = os.path.join(SRC, "toolchain", "pythons.lock.json")


def cw(args, env, **kw):
    return run([CW, "python"] + args, env=env, **kw)


def sys_state():
    h = hashlib.sha256()
    for root, _, files in sorted(os.walk("/etc/apt")):
        for f in sorted(files):
            p = os.path.join(root, f)
            if os.path.isfile(p):
                h.update(p.encode() + open(p, "rb").read())
    h.update(subprocess.run(["dpkg", "-l"], capture_output=True).stdout)
    return h.hexdigest()


def lock_with(tmp, name, change):
    lock = json.load(open(LOCK))
    change(next(p for p in lock["pythons"] if p["minor"] == "3.14"))
    path = os.path.join(tmp, name)
    json.dump(lock, open(path, "w"), indent=1)
    return path


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-pyinst.")
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, CUWHEEL_CACHE_DIR=cache, CUWHEEL_PYTHON_LOCK=LOCK)
    pythons = os.path.join(cache, "pythons")

    # Refusals that need no network: (arguments, environment changes, exit, message).
    nopatchelf = os.path.join(tmp, "nopatchelf")
    os.makedirs(nopatchelf)
    for t in ("apt-get", "dpkg-deb", "tar"):
        if shutil.which(t):
            os.symlink(shutil.which(t), os.path.join(nopatchelf, t))
    cases = [
        (["install", "3.14t"], {}, 1,
         "cannot provision Python 3.14t: Debian ships no free-threaded CPython"),
        (["install", "3.9"], {}, 1, "cannot provision Python 3.9: "),
        (["install", "python3.14"], {}, 1, "'python3.14' is not a Python version"),
        (["install"], {}, 2, "python install needs a VERSION"),
        (["instal", "3.14"], {}, 2, "did you mean 'install'?"),
        (["remove", "3.14"], {}, 1, "Python 3.14 is not installed"),
        (["list", "3.14"], {}, 2, "python list takes no arguments"),
        (["install", "3.14"], {"CUWHEEL_CACHE_DIR": os.path.join(tmp, "a:b")}, 1,
         "the path holds ':'"),
        (["install", "3.14"], {"PATH": nopatchelf}, 1,
         "patchelf is not on PATH (Debian's patchelf package"),
        (["install", "3.14"], {"CUWHEEL_PYTHON_LOCK": os.path.join(tmp, "none.json")}, 1,
         "none.json"),
    ]
    for args, more, want_rc, want in cases:
        rc, out = cw(args, dict(env, **more))
        check(rc == want_rc and want in out,
              f"python {' '.join(args)}: exit {rc}, says '{want}'" +
              ("" if rc == want_rc and want in out else f"\n{out}"))
    check(not glob.glob(os.path.join(pythons, "[0-9]*")), "the refusals left no Python")
    rc, out = cw(["list"], env)
    check(rc == 0 and "no provisioned Pythons" in out, "list with nothing installed")

    for t, pkg in (("apt-get", "apt"), ("dpkg-deb", "dpkg"), ("patchelf", "patchelf")):
        if not shutil.which(t):
            skip(f"no {t} (Debian's {pkg})", ci_installs=pkg)
    try:
        socket.create_connection(("deb.debian.org", 80), timeout=10).close()
    except OSError:
        skip("deb.debian.org is not reachable")

    # A pin sid no longer carries, and a .deb whose sha256 is not the lock's.
    gone = lock_with(tmp, "gone.json", lambda p: next(
        q for q in p["packages"] if q["name"] == "libuuid1").update(version="0.0-0"))
    rc, out = cw(["install", "3.14"], dict(env, CUWHEEL_PYTHON_LOCK=gone))
    check(rc == 1 and "Debian sid no longer carries libuuid1 0.0-0" in out and
          "regenerate the lock with tools/update-python-lock" in out,
          "a vanished pin says to regenerate the lock" + ("" if rc == 1 else f"\n{out}"))
    bad = lock_with(tmp, "badsha.json", lambda p: min(
        p["packages"], key=lambda q: q["size"]).update(sha256="0" * 64))
    rc, out = cw(["install", "3.14"], dict(env, CUWHEEL_PYTHON_LOCK=bad))
    check(rc == 1 and "sha256 mismatch" in out, "a changed .deb is refused")
    check(not glob.glob(os.path.join(pythons, "[0-9]*")), "the failures left no Python")

    before = sys_state()
    # Killed midway: once the staging tree exists, SIGKILL the process group.
    p = subprocess.Popen([CW, "python", "install", "3.14"], env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(6000):
        if glob.glob(os.path.join(pythons, ".tmp-*")) or p.poll() is not None:
            break
        time.sleep(0.05)
    killed = p.poll() is None
    if killed:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    rc, out = cw(["list", "--json"], env)
    check(killed and rc == 0 and json.loads(out) == [],
          "an install killed midway leaves nothing `list` shows")

    t0 = time.time()
    rc, out = cw(["install", "3.14"], env)
    took = time.time() - t0
    check(rc == 0 and "installed Python 3.14." in out, f"install 3.14 ({took:.0f} s)\n{out}")
    if rc != 0:
        return 1
    check(not glob.glob(os.path.join(pythons, ".tmp-*")), "no staging tree left")
    lock = json.load(open(LOCK))
    want = next(p for p in lock["pythons"] if p["minor"] == "3.14")
    root = os.path.join(pythons, want["version"])
    py = os.path.join(root, "usr", "bin", "python3.14")
    rc, out = run([py, "-c", "import sys, ssl; print('%d.%d.%d' % sys.version_info[:3]); "
                   "print(sys.prefix); print(ssl.OPENSSL_VERSION)"])
    check(rc == 0 and out.splitlines()[0] == want["version"] and
          out.splitlines()[1] == os.path.join(root, "usr"),
          f"the interpreter runs as {want['version']} from its root: {out.strip()}")
    venv = os.path.join(tmp, "venv")
    rc, out = run([py, "-m", "venv", venv])
    rc2, out2 = run([os.path.join(venv, "bin", "python"), "-m", "pip", "--version"])
    check(rc == 0 and rc2 == 0 and "pip " in out2, f"python -m venv has pip: {out}{out2.strip()}")
    rc, out = run([py, "-m", "pip", "--version"])
    check(rc == 0 and root in out, f"the base interpreter has pip: {out.strip()}")

    # A C extension against the root's headers, compiled by the host's gcc, imports.
    ext = os.path.join(tmp, "ext")
    os.makedirs(ext)
    open(os.path.join(ext, "hello.c"), "w").write(
        "#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n"
        "static PyObject *answer(PyObject *s, PyObject *a) { return PyLong_FromLong(42); }\n"
        "static PyMethodDef m[] = {{\"answer\", answer, METH_NOARGS, 0}, {0}};\n"
        "static struct PyModuleDef d = {PyModuleDef_HEAD_INIT, \"hello\", 0, -1, m};\n"
        "PyMODINIT_FUNC PyInit_hello(void) { return PyModule_Create(&d); }\n")
    rc, inc = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"])
    rc, suffix = run([py, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"])
    so = os.path.join(ext, "hello" + suffix.strip())
    rc, out = run(["gcc", "-shared", "-fPIC", "-I", inc.strip(), "-o", so,
                   os.path.join(ext, "hello.c")])
    rc2, out2 = run([py, "-c", "import hello; print(hello.answer())"], cwd=ext)
    check(rc == 0 and rc2 == 0 and out2.strip() == "42",
          f"a C extension built with gcc against {inc.strip()} imports\n{out}{out2}")
    check(sys_state() == before, "/etc/apt and dpkg -l unchanged")

    rc, out = cw(["install", "3.14"], env)
    check(rc == 0 and "already installed" in out, "a second install does nothing")
    rc, out = cw(["list", "--json"], env)
    listed = json.loads(out) if rc == 0 else []
    check(len(listed) == 1 and listed[0]["version"] == want["version"] and
          listed[0]["interpreter"] == py and listed[0]["source"] == "debian sid" and
          [(q["name"], q["version"], q["sha256"]) for q in listed[0]["packages"]] ==
          [(q["name"], q["version"], q["sha256"]) for q in want["packages"]],
          "list --json: the release, interpreter, source and the lock's packages with sha256")
    rc, out = run([CW, "doctor"], env=env)
    check(f"{py}  (found by cuwheel)" in out, "discovery finds it (doctor: found by cuwheel)")
    rc, out = cw(["remove", "3.14"], env)
    check(rc == 0 and f"removed {root}" in out and not os.path.exists(root), "remove 3.14")
    rc, out = run([CW, "doctor"], env=env)
    check(py not in out.replace(f"{py}: ", ""), "discovery no longer finds it")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
