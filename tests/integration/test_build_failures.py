#!/usr/bin/env python3
"""test_build_failures.py: real builds that go wrong (tinyraster, Pythons 3.11 and 3.12 + abi3,
CUDA 13.0, arch 7.5), too slow for the case table:
  - a compiler error in the binding for one Python: with --keep-going that cell is named as
    failed, the others finish and their wheels are in dist/, the compiler's message is shown
    with file and line;
  - a compiler error in a kernel: every cell of that toolkit fails (they share the archive),
    nvcc's message is shown with file and line, no wheel is written;
  - a toolchain that breaks mid-build: an explicit [tool.cuwheel.toolkits] entry whose nvcc
    wrapper fails after N compiles: the build fails naming the step, no partial wheel;
  - a Python that vanishes after the plan (its [tool.cuwheel.pythons] entry removed from disk
    before the build): a warning names it and the cell uses the 3.12 found elsewhere (the
    table is searched first, not only);
  - dist/ read-only (a read-only bind mount; root only): the build fails naming dist/, no
    wheel and no temp file appears;
  - a full disk (a 1 MiB tmpfs as dist/; root only): the build fails with "No space left", no
    partial wheel and no temp file remains.
Every case ends with dist/ holding only complete wheels (zipfile CRC + RECORD verified)."""
import base64
import csv
import glob
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/hard/cuwheel"))
NVCC = "/usr/local/cuda-13.0/bin/nvcc"
FAILS = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else "\n  " + detail[-3000:]))
    if not ok:
        FAILS.append(what)


def complete(path):
    try:
        with zipfile.ZipFile(path) as z:
            if z.testzip() is not None:
                return False
            rec = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")][0]
            rows = {r[0]: r for r in csv.reader(io.StringIO(z.read(rec).decode())) if r}
            for n in z.namelist():
                if n != rec and not n.endswith("/"):
                    d = z.read(n)
                    h = "sha256=" + base64.urlsafe_b64encode(
                        hashlib.sha256(d).digest()).rstrip(b"=").decode()
                    if rows.get(n, [None, None])[1] != h:
                        return False
        return True
    except Exception:
        return False


def dist_clean(label, dist):
    if not os.path.isdir(dist):
        return
    names = os.listdir(dist)
    junk = [n for n in names if not n.endswith(".whl") or n.startswith(".")]
    check(f"{label}: no temp file in dist/", not junk, str(junk))
    bad = [n for n in names if n.endswith(".whl") and not complete(os.path.join(dist, n))]
    check(f"{label}: every wheel in dist/ is complete", not bad, str(bad))


class Project:
    def __init__(self, tmp, name):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        for x in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
            s = os.path.join(ROOT, "examples", "tinyraster", x)
            (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(self.dir, x))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
        self.env.update(NO_COLOR="1", CUWHEEL_MATRIX_CUDA="13.0", CUWHEEL_ARCHS="7.5",
                        CUWHEEL_MATRIX_PYTHON="3.11,3.12",
                        CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
        self.dist = os.path.join(self.dir, "dist")

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def build(self, *args):
        p = subprocess.run([CUWHEEL, "build", "--no-test", "-j", "2", *args], cwd=self.dir,
                           env=self.env, capture_output=True, text=True, timeout=900)
        return p.returncode, p.stdout + p.stderr

    def edit(self, rel, old, new):
        with open(self.path(rel)) as f:
            s = f.read()
        assert old in s, (rel, old)
        with open(self.path(rel), "w") as f:
            f.write(s.replace(old, new, 1))

    def append_toml(self, text):
        with open(self.path("pyproject.toml"), "a") as f:
            f.write(text)

    def touch_binding(self):
        """Edits the binding (a comment), so every cell relinks and packs again."""
        with open(self.path("bindings/tinyraster.c"), "a") as f:
            f.write(f"/* rebuild {os.urandom(4).hex()} */\n")

    def wheels(self):
        return sorted(os.path.basename(p) for p in glob.glob(os.path.join(self.dist, "*.whl")))


def line_of(path, needle):
    with open(path) as f:
        for i, l in enumerate(f, 1):
            if needle in l:
                return i
    raise AssertionError(needle)


def binding_error(tmp):
    p = Project(tmp, "binding")
    p.edit("bindings/tinyraster.c", '#include "tinyraster.h"\n',
           '#include "tinyraster.h"\n#if PY_MINOR_VERSION == 12 && !defined(Py_LIMITED_API)\n'
           'int broken = undeclared_in_cp312;\n#endif\n')
    line = line_of(p.path("bindings/tinyraster.c"), "undeclared_in_cp312")
    rc, out = p.build("--keep-going")
    check("binding error: the build fails (exit 1)", rc == 1, out)
    check("binding error: the failing cell cp312-cu130 is named",
          re.search(r"cp312-cu130-linux_x86_64\s+(FAILED|failed)", out) is not None, out)
    row = re.search(r"^cp312-cu130-linux_x86_64\s+FAILED.*$", out, re.M)
    check("binding error: the failed cell's TIME is not 'up to date' (its compile failed)",
          row is not None and "up to date" not in row.group(0), row.group(0) if row else out)
    check(f"binding error: the compiler's message with file and line ({line})",
          re.search(rf"tinyraster\.c:{line}:\d+: error: .*undeclared_in_cp312", out)
          is not None, out)
    w = p.wheels()
    check("binding error: --keep-going finished the other cells (cp311 and abi3 wheels)",
          any("cp311-cp311" in x for x in w) and any("abi3" in x for x in w)
          and not any("cp312-cp312" in x for x in w), str(w))
    dist_clean("binding error", p.dist)


def kernel_error(tmp):
    p = Project(tmp, "kernel")
    p.edit("kernels/rasterize.cu", "static __global__ void k_project",
           "static int nope = missing_symbol_in_kernel;\nstatic __global__ void k_project")
    line = line_of(p.path("kernels/rasterize.cu"), "missing_symbol_in_kernel")
    rc, out = p.build("--keep-going")
    check("kernel error: the build fails (exit 1)", rc == 1, out)
    check(f"kernel error: nvcc's message with file and line ({line})",
          re.search(rf"rasterize\.cu\({line}\): error", out) is not None, out)
    check("kernel error: the cells of that toolkit are named as failed",
          all(re.search(rf"{c}-cu130-linux_x86_64\s+\S*(FAIL|fail|skip|not built)", out)
              for c in ("cp311", "cp312")), out)
    check("kernel error: no wheel written", p.wheels() == [], str(p.wheels()))
    dist_clean("kernel error", p.dist)


def nvcc_breaks(tmp):
    p = Project(tmp, "nvcc")
    fake = os.path.join(tmp, "fake-cuda")
    os.makedirs(os.path.join(fake, "bin"))
    for e in os.listdir("/usr/local/cuda-13.0"):
        if e != "bin":
            os.symlink(os.path.join("/usr/local/cuda-13.0", e), os.path.join(fake, e))
    for e in os.listdir("/usr/local/cuda-13.0/bin"):
        if e != "nvcc":
            os.symlink(os.path.join("/usr/local/cuda-13.0/bin", e), os.path.join(fake, "bin", e))
    counter = os.path.join(tmp, "nvcc-calls")
    with open(os.path.join(fake, "bin", "nvcc"), "w") as f:
        f.write(f"""#!/bin/sh
# A toolkit that breaks mid-build: the third compile (-c) and later fail. The count is taken
# under a lock: with -j 2 two compiles run at once, and an unlocked read-increment-write lost
# a count (both read 0), so the third compile passed and the build succeeded (seen under ASan).
case " $* " in *" -c "*)
  n=$(flock {counter}.lock sh -c 'n=$(($(cat {counter} 2>/dev/null || echo 0) + 1)); echo $n > {counter}; echo $n')
  if [ $n -gt 2 ]; then echo "nvcc: fatal: the toolkit went away (call $n)" >&2; exit 1; fi;;
esac
exec {NVCC} "$@"
""")
    os.chmod(os.path.join(fake, "bin", "nvcc"), 0o755)
    p.append_toml(f'\n[tool.cuwheel.toolkits]\n"13.0" = "{fake}"\n')
    rc, out = p.build("--keep-going")
    check("broken nvcc: the build fails (exit 1)", rc == 1, out)
    check("broken nvcc: its message is shown", "the toolkit went away" in out, out)
    check("broken nvcc: the cells are named as failed",
          re.search(r"cp31[12]-cu130-linux_x86_64\s+\S*(FAIL|fail)", out) is not None, out)
    check("broken nvcc: no wheel written", p.wheels() == [], str(p.wheels()))
    dist_clean("broken nvcc", p.dist)
    # The toolkit comes back: the next build completes.
    os.remove(os.path.join(fake, "bin", "nvcc"))
    os.symlink(NVCC, os.path.join(fake, "bin", "nvcc"))
    rc, out = p.build()
    check("broken nvcc: once repaired, the build completes", rc == 0, out)
    return p


def python_vanishes(tmp):
    p = Project(tmp, "python")
    real = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12.*/bin/python3")))
    if not real:
        print("note: vanishing-Python case skipped (no pyenv 3.12)")
        return
    link = os.path.join(tmp, "py312", "python3.12")
    os.makedirs(os.path.dirname(link))
    os.symlink(real[-1], link)
    p.append_toml(f'\n[tool.cuwheel.pythons]\n"3.12" = "{link}"\n')
    r = subprocess.run([CUWHEEL, "plan"], cwd=p.dir, env=p.env, capture_output=True, text=True)
    check("vanishing Python: the plan uses the explicit interpreter", link in r.stdout,
          r.stdout + r.stderr)
    os.remove(link)
    # The table is searched first, not only: a vanished entry is named in a warning and the
    # cell falls back to another 3.12 found on the machine (pyenv here).
    rc, out = p.build("--keep-going")
    check("vanishing Python: a warning names the vanished interpreter",
          f"{link}: warning" in out, out)
    check("vanishing Python: the build completes with the 3.12 found elsewhere",
          rc == 0 and any("cp312-cp312" in x for x in p.wheels()), f"rc {rc} {out}")
    dist_clean("vanishing Python", p.dist)


def can_mount(tmp):
    d = os.path.join(tmp, "mnt-probe")
    os.makedirs(d)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d],
                       capture_output=True)
    if r.returncode == 0:
        subprocess.run(["umount", d])
        return True
    return False


def read_only_dist(tmp, p):
    os.makedirs(p.dist, exist_ok=True)
    for w in p.wheels():
        os.remove(os.path.join(p.dist, w))
    subprocess.run(["mount", "--bind", p.dist, p.dist], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", p.dist], check=True)
        p.touch_binding()
        rc, out = p.build()
        check("read-only dist/: the build fails", rc != 0, out)
        check("read-only dist/: the message names dist/ and says why",
              "dist" in out and "Read-only file system" in out, out)
        check("read-only dist/: no wheel appears", p.wheels() == [], str(p.wheels()))
    finally:
        subprocess.run(["umount", p.dist])
    dist_clean("read-only dist/", p.dist)
    rc, out = p.build()
    check("read-only dist/: writable again, the build completes", rc == 0, out)


def full_disk(tmp, p):
    for w in p.wheels():
        os.remove(os.path.join(p.dist, w))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", p.dist], check=True)
    try:
        # ~1 MiB holds at most one or two of the ~250 kB wheels once the filler is in.
        with open(os.path.join(p.dist, "filler"), "wb") as f:
            f.write(bytes(800 << 10))
        p.touch_binding()
        rc, out = p.build("--keep-going")
        os.remove(os.path.join(p.dist, "filler"))
        check("full disk: the build fails", rc != 0, out)
        check("full disk: the message says No space left on device",
              "No space left on device" in out, out)
        dist_clean("full disk", p.dist)
    finally:
        subprocess.run(["umount", p.dist])


def main():
    if not os.path.exists(NVCC):
        return testskip.skip_code("needs CUDA 13.0 at /usr/local/cuda-13.0")
    with tempfile.TemporaryDirectory(prefix="cuwheel-failures-") as tmp:
        binding_error(tmp)
        kernel_error(tmp)
        p = nvcc_breaks(tmp)
        python_vanishes(tmp)
        if os.geteuid() == 0 and can_mount(tmp):
            read_only_dist(tmp, p)
            full_disk(tmp, p)
        else:
            print("note: read-only and full-disk cases skipped (they need root to mount)")
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("every broken build failed cleanly: cells named, messages with file:line, dist/ "
          "holding only complete wheels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
