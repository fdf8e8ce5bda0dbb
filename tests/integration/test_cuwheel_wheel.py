"""tools/cuwheel-wheel packs cuwheel into a py3-none-manylinux wheel that pip installs: built twice
from different build directories it is the same bytes; cuwheel's own audit and auditwheel
(`auditwheel show`) accept it; installed into a fresh venv of each of Python 3.10-3.13 it runs
`cuwheel --version`, finds its lock file (`toolkit list --available`) and plans tinyraster,
with every bundled library loaded from the venv, none from the system."""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile

ROOT = os.getcwd()
CUWHEEL = os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel")
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
        if detail:
            print(detail, file=sys.stderr)
    return cond


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def pythons():
    out = {}
    for minor in ("3.10", "3.11", "3.12", "3.13"):
        found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{minor}.*/bin/python3")))
        if found:
            out[minor] = found[-1]
    return out


def auditwheel_python():
    """A Python with auditwheel: this one, else a venv of our own."""
    if run([sys.executable, "-c", "import auditwheel"]).returncode == 0:
        return sys.executable
    d = os.path.join(ROOT, "build", "test-cuwheel-wheel-venv")
    py = os.path.join(d, "bin", "python")
    if not os.path.exists(py):
        venv.create(d, with_pip=True)
    if run([py, "-c", "import auditwheel"]).returncode:
        p = run([py, "-m", "pip", "install", "-q", "auditwheel"])
        if p.returncode:
            sys.exit("cannot install auditwheel:\n" + p.stderr)
    return py


def build(tag):
    out = tempfile.mkdtemp(prefix=f"cuwheel-wheel-{tag}-")
    p = run([os.path.join(ROOT, "tools", "cuwheel-wheel"), out,
             os.path.join(ROOT, "build", f"wheel-{tag}")])
    check(p.returncode == 0, f"tools/cuwheel-wheel ({tag}) exits 0", p.stdout + p.stderr)
    return p.stdout.strip().splitlines()[-1] if p.returncode == 0 else None


def main():
    missing = [t for t in ("patchelf", "cmake", "ninja") if not shutil.which(t)]
    pys = pythons()
    if missing or len(pys) < 4:
        print(f"SKIP: needs patchelf, cmake, ninja ({missing} missing) and pyenv's Python "
              f"3.10-3.13 (found {sorted(pys)})")
        sys.exit(77)
    a, b = build("a"), build("b")
    if not (a and b):
        sys.exit(1)
    name = os.path.basename(a)
    check(re.fullmatch(r"cuwheel-[0-9.]+-py3-none-manylinux_2_\d+_x86_64\.whl", name),
          f"{name}: a py3-none-manylinux_2_X wheel")
    da = hashlib.sha256(open(a, "rb").read()).hexdigest()
    db = hashlib.sha256(open(b, "rb").read()).hexdigest()
    check(os.path.basename(b) == name and da == db,
          f"byte-reproducible: two build directories, one sha256 ({da[:16]})", f"{da}\n{db}")
    with zipfile.ZipFile(a) as z:
        names = z.namelist()
        data = b"".join(z.read(n) for n in names)
    ver = name.split("-")[1]
    for member in (f"cuwheel-{ver}.data/scripts/cuwheel",
                   f"cuwheel-{ver}.data/data/share/cuwheel/toolkits.lock.json",
                   f"cuwheel-{ver}.data/data/share/cuwheel/cross.lock.json"):
        check(member in names, f"the wheel holds {member}")
    libs = [n for n in names if "/data/lib/cuwheel/" in n]
    for lib in ("libzip.so.4", "libjansson.so.4", "libelf.so.1", "libcrypto.so.3", "libz.so.1"):
        check(any(n.endswith("/" + lib) for n in libs), f"the wheel bundles {lib}", str(libs))
    check(ROOT.encode() not in data and b"/build/wheel-" not in data,
          "no build path inside the wheel")

    p = run([CUWHEEL, "audit", a])
    check(p.returncode == 0 and "OK" in p.stdout, "cuwheel audit accepts it", p.stdout + p.stderr)
    p = run([auditwheel_python(), "-m", "auditwheel", "show", a])
    tag = re.search(r"manylinux_2_\d+", name).group(0)
    check(p.returncode == 0 and f'"{tag}_x86_64"' in p.stdout.replace("\n", " "),
          f"auditwheel show: consistent with {tag}_x86_64", p.stdout + p.stderr)

    tmp = tempfile.mkdtemp(prefix="cuwheel-wheel-venvs-")
    try:
        for minor, base in sorted(pys.items()):
            env_dir = os.path.join(tmp, minor)
            p = run([base, "-m", "venv", env_dir])
            check(p.returncode == 0, f"{minor}: fresh venv", p.stderr)
            pip = [os.path.join(env_dir, "bin", "python"), "-m", "pip"]
            p = run([*pip, "install", "-q", "--no-index", a])
            check(p.returncode == 0, f"{minor}: pip install {name}", p.stdout + p.stderr)
            exe = os.path.join(env_dir, "bin", "cuwheel")
            env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL")}
            p = run([exe, "--version"], env=env)
            check(p.returncode == 0 and p.stdout.strip() == f"cuwheel {ver}",
                  f"{minor}: venv/bin/cuwheel --version", p.stdout + p.stderr)
            ldd = run(["ldd", exe]).stdout
            for lib in ("libzip.so.4", "libjansson.so.4", "libelf.so.1", "libcrypto.so.3"):
                m = re.search(rf"{re.escape(lib)} => (\S+)", ldd)
                check(m and os.path.normpath(m.group(1)).startswith(
                    os.path.join(env_dir, "lib", "cuwheel")),
                      f"{minor}: {lib} loads from the venv", ldd if not m else m.group(0))
            p = run([exe, "toolkit", "list", "--available"], env=env)
            check(p.returncode == 0 and "13.0" in p.stdout,
                  f"{minor}: the lock file is found under share/cuwheel", p.stdout + p.stderr)
            p = run([exe, "-C", os.path.join(ROOT, "examples", "tinyraster"), "plan"], env=env)
            check(p.returncode == 0 and p.stdout.startswith("tinyraster "),
                  f"{minor}: cuwheel plan from the venv", p.stdout[:300] + p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for w in (a, b):
            shutil.rmtree(os.path.dirname(w), ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("test_cuwheel_wheel: all checks passed")


main()
