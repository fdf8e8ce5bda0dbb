#!/usr/bin/env python3
"""test_outputs: one output-writing rule for every path cuwheel writes (issue 19, class 3).

A file cuwheel writes (`ci github -o`, the wheel of `pack -o`/`retag -o`, `report --out`'s files,
every atomic write) must be absent or a regular file: a symlink (to a file, or dangling), a
directory, a FIFO, a character device (/dev/full) or a socket is refused with "refusing to
write: it is ..." and left exactly as it was. A directory replaced as a whole (`index --out`)
must be a real directory, not a link. dist-dir and build-dir must not lie inside a shipped
package, an include dir or a source dir (a located error). Table-driven; each case checks the
exit code, the message and that the target is unchanged (lstat before and after)."""
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()), "bench"))
import bigwheel  # noqa: E402

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", os.path.join(ROOT, "build/ci/cuwheel")))
FAILS = []
PYPROJECT = """[project]
name = "demo-pkg"
version = "1.0"
description = "x"
requires-python = ">=3.10"
[tool.cuwheel]
packages = ["demo"]
{extra}
[tool.cuwheel.extension]
module = "demo._C"
sources = ["src/ext.c"]
include-dirs = ["inc"]
[tool.cuwheel.matrix]
cuda = ["13.0"]
"""
WHEEL = "demo_pkg-1.0-py3-none-any.whl"


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name, flush=True)
    if not ok:
        FAILS.append(name)
        print("   " + detail[-1500:].replace("\n", "\n   "))


def snap(path):
    """What path is, to compare before and after: type, link target, size, mtime."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    link = os.readlink(path) if stat.S_ISLNK(st.st_mode) else None
    return (stat.S_IFMT(st.st_mode), link, st.st_size if stat.S_ISREG(st.st_mode) else 0,
            st.st_mtime_ns if not stat.S_ISCHR(st.st_mode) else 0)


def project(d, extra=""):
    os.makedirs(os.path.join(d, "demo"))
    os.makedirs(os.path.join(d, "src"))
    os.makedirs(os.path.join(d, "inc"))
    with open(os.path.join(d, "pyproject.toml"), "w") as f:
        f.write(PYPROJECT.format(extra=extra))
    for n in ("demo/__init__.py", "src/ext.c"):
        open(os.path.join(d, n), "w").close()


def make(kind, path, tmp):
    """Creates a target of kind at path."""
    if kind == "symlink to a file":
        open(os.path.join(tmp, "victim"), "w").write("keep me\n")
        os.symlink(os.path.join(tmp, "victim"), path)
    elif kind == "dangling symlink":
        os.symlink(os.path.join(tmp, "nowhere"), path)
    elif kind == "symlink to a dir":
        os.makedirs(os.path.join(tmp, "victimdir"), exist_ok=True)
        os.symlink(os.path.join(tmp, "victimdir"), path)
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "directory":
        os.makedirs(path)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.close()
    elif kind == "regular file":
        open(path, "w").write("old\n")


def run(args, cwd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([CUWHEEL] + args, cwd=cwd, capture_output=True, text=True, env=e,
                          timeout=300)


def main():
    refusals = {"symlink to a file": "it is a symbolic link",
                "dangling symlink": "it is a symbolic link",
                "FIFO": "it is a FIFO", "directory": "it is a directory",
                "socket": "it is a socket"}
    n = 0
    with tempfile.TemporaryDirectory(prefix="cuwheel-outputs-") as tmp:
        src = os.path.join(tmp, "wheels")
        os.makedirs(src)
        whl = bigwheel.make_wheel(src, 3)
        # (command, args builder, the file path the command writes)
        cmds = [
            ("ci github -o", lambda w, t: ["-C", "proj", "ci", "github", "-o", t, "--cuwheel",
                                            "git+https://github.com/cuwheel/cuwheel@d85fa5402764b63a9f233b6a820d8be0d5ea43b9"], "wf.yml"),
            ("pack -o", lambda w, t: ["-C", "proj", "pack", "stage", "--tag", "py3-none-any",
                                      "-o", "out"], "out/" + WHEEL),
            ("retag -o", lambda w, t: ["retag", whl, "--local", "cu130", "-o", "out"],
             "out/demo-1.0+cu130-py3-none-any.whl"),
        ]
        for cname, args, target in cmds:
            for kind, msg in list(refusals.items()) + [("regular file", None), ("absent", None)]:
                n += 1
                w = os.path.join(tmp, f"c{n}")
                project(os.path.join(w, "proj"))
                os.makedirs(os.path.join(w, "stage", "demo"))
                open(os.path.join(w, "stage", "demo", "__init__.py"), "w").close()
                os.makedirs(os.path.join(w, "out"))
                t = os.path.join(w, target)
                make(kind, t, w)
                before = snap(t)
                p = run(args(w, t), w)
                out = p.stdout + p.stderr
                if msg:
                    check(f"{cname} onto a {kind}: refused, left as it was",
                          p.returncode == 1 and f"refusing to write: {msg}" in out and
                          snap(t) == before and "wrote" not in p.stdout and
                          not [x for x in os.listdir(os.path.dirname(t)) if x.startswith(".")],
                          out + f"\nbefore {before} after {snap(t)}")
                else:
                    check(f"{cname} onto a {kind}: written as a regular file",
                          p.returncode == 0 and os.path.isfile(t) and not os.path.islink(t),
                          out)
        # A character device (a /dev/full of our own: the old code replaced the device node
        # with a regular file, so the test must never point at the real one).
        w = os.path.join(tmp, "devfull")
        project(os.path.join(w, "proj"))
        dev = os.path.join(w, "full")
        try:
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except OSError as e:
            print(f"note: no device node case ({e}: mknod needs root)")
            dev = None
        if dev:
            before = snap(dev)
            p = run(["-C", "proj", "ci", "github", "-o", dev, "--cuwheel",
                     "git+https://github.com/cuwheel/cuwheel@d85fa5402764b63a9f233b6a820d8be0d5ea43b9"], w)
            check("ci github -o a character device (/dev/full's): refused, still a device",
                  p.returncode == 1 and "it is a character device" in p.stderr and
                  snap(dev) == before and stat.S_ISCHR(os.lstat(dev).st_mode),
                  p.stdout + p.stderr)
        # -o DIR: a directory written into must be a directory (a link to one is followed).
        for kind, msg in (("regular file", "it is a regular file, not a directory"),
                          ("dangling symlink", "it is a symbolic link, not a directory"),
                          ("FIFO", "it is a FIFO, not a directory"),
                          ("symlink to a dir", None)):
            n += 1
            w = os.path.join(tmp, f"c{n}")
            os.makedirs(w)
            t = os.path.join(w, "outdir")
            make(kind, t, w)
            before = snap(t)
            p = run(["retag", whl, "--local", "cu130", "-o", t], w)
            out = p.stdout + p.stderr
            if msg:
                check(f"retag -o DIR onto a {kind}: refused, left as it was",
                      p.returncode == 1 and f"refusing to write: {msg}" in out and
                      snap(t) == before, out)
            else:
                check(f"retag -o DIR onto a {kind}: written into the linked dir",
                      p.returncode == 0 and snap(t) == before and
                      os.listdir(os.path.join(w, "victimdir")), out)
        # index --out: the site is replaced as a whole, so it must be a real directory.
        for kind, msg in (("symlink to a dir", "it is a symbolic link"),
                          ("dangling symlink", "it is a symbolic link"),
                          ("FIFO", "it is a FIFO"), ("regular file", "it is a regular")):
            n += 1
            w = os.path.join(tmp, f"c{n}")
            os.makedirs(w)
            t = os.path.join(w, "site")
            make(kind, t, w)
            before = snap(t)
            p = run(["index", src, "--out", t], w)
            out = p.stdout + p.stderr
            check(f"index --out onto a {kind}: refused, left as it was",
                  p.returncode == 1 and "refusing to write" in out and snap(t) == before and
                  not [x for x in os.listdir(w) if x.startswith(".site.new")], out)
        # dist-dir / build-dir inside what the build reads or ships: a located error.
        for name, extra, env, want in (
            ("dist-dir in the shipped package (key)", 'dist-dir = "demo/dist"', {},
             "pyproject.toml:8:12: error: dist-dir"),
            ("build-dir in the shipped package (key)", 'build-dir = "demo/b"', {},
             "pyproject.toml:8:13: error: build-dir"),
            ("dist-dir is the shipped package", 'dist-dir = "demo"', {},
             "lies inside the shipped package 'demo'"),
            ("dist-dir in the package (CUWHEEL_DIST_DIR)", "", {"CUWHEEL_DIST_DIR": "demo/d"},
             "(set by CUWHEEL_DIST_DIR)"),
            ("build-dir in the source dir (CUWHEEL_BUILD_DIR)", "",
             {"CUWHEEL_BUILD_DIR": "src/b"}, "inside the source dir 'src'"),
            ("build-dir in the include dir", 'build-dir = "inc/b"', {},
             "inside the include dir 'inc'"),
            ("dist-dir in the package through a symlink", 'dist-dir = "lnk/dist"', {},
             "inside the shipped package 'demo'"),
        ):
            n += 1
            w = os.path.join(tmp, f"c{n}")
            project(w, extra)
            os.symlink("demo", os.path.join(w, "lnk"))
            p = run(["plan"], w, env)
            check(f"{name}: refused", p.returncode == 1 and want in p.stderr, p.stderr)
        n += 1
        w = os.path.join(tmp, f"c{n}")
        project(w, 'dist-dir = "wheels"\nbuild-dir = "b"')
        p = run(["plan"], w)
        check("dist-dir and build-dir beside the package: accepted", p.returncode == 0,
              p.stderr)
    print(f"test_outputs: {len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
