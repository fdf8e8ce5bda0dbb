#!/usr/bin/env python3
"""test_pack_retag.py: `cuwheel retag`: tags and local label changed with the payload's
compressed bytes copied as they are, dist-info renamed, every validator still happy; and hostile
archives (traversal, absolute and backslash names, symlinks, duplicates, truncation, garbage,
bad CRC, lying and absurd sizes, a zip bomb, RECORD mismatch) refused with nothing written."""
import base64
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import pypi_zip_check  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/pack/cuwheel"))
FAILS = []


def check(name, cond, detail=""):
    if not cond:
        FAILS.append("%s: %s" % (name, detail))
        print("FAIL", name, detail)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def venv_python():
    p = os.path.join(ROOT, "build", "venv", "bin", "python")
    if not os.path.exists(p):
        p = run([os.path.join(ROOT, "tools", "test-venv")], check=True).stdout.strip()
    return p


def rec_hash(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()


def make_wheel(path, members, extra_record=None, symlink=None, record=True):
    """A wheel of members [(name, bytes)] + dist-info, written with zipfile."""
    di = "demo-1.0.dist-info"
    files = list(members) + [
        (di + "/METADATA", b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"),
        (di + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                        b"Tag: py3-none-any\n"),
    ]
    rows = ["%s,%s,%d" % (n, rec_hash(b), len(b)) for n, b in files] + (extra_record or [])
    rows.append(di + "/RECORD,,")
    if record:
        files.append((di + "/RECORD", ("\n".join(rows) + "\n").encode()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in files:
            zi = zipfile.ZipInfo(n, (2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o120777 if n == symlink else 0o100644) << 16
            z.writestr(zi, b)
    return path


def patch_headers(path, name, field):
    """Rewrites a field of name's local and central headers: ('crc', v) or ('size', v)."""
    data = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as z:
        off = z.getinfo(name).header_offset
    what, val = field
    loc = {"crc": 14, "size": 22}[what]
    cen = {"crc": 16, "size": 24}[what]
    struct.pack_into("<I", data, off + loc, val)
    i = data.find(b"PK\x01\x02")
    while i >= 0:
        nlen = struct.unpack_from("<H", data, i + 28)[0]
        if data[i + 46:i + 46 + nlen] == name.encode():
            struct.pack_into("<I", data, i + cen, val)
        i = data.find(b"PK\x01\x02", i + 4)
    open(path, "wb").write(bytes(data))


def raw_member(path, name):
    with zipfile.ZipFile(path) as z:
        zi = z.getinfo(name)
    data = open(path, "rb").read()
    nlen, xlen = struct.unpack_from("<HH", data, zi.header_offset + 26)
    start = zi.header_offset + 30 + nlen + xlen
    return zi.CRC, data[start:start + zi.compress_size]


def test_retag(tmp, vpy):
    big = os.urandom(1 << 20) + b"\0" * (1 << 20)
    src = make_wheel(os.path.join(tmp, "in", "demo-1.0-py3-none-any.whl"),
                     [("demo/__init__.py", b"x = 1\n"), ("demo/_C.so", big),
                      ("demo-1.0.data/scripts/tool", b"#!python\nprint(1)\n")]) \
        if os.makedirs(os.path.join(tmp, "in")) is None else None
    out = os.path.join(tmp, "out")
    r = run([CUWHEEL, "retag", src, "--local", "CU_130", "--platform",
             "manylinux_2_28_x86_64.manylinux_2_17_x86_64", "--python", "cp312", "--abi", "cp312",
             "--build", "2", "-o", out])
    if not check("retag", r.returncode == 0, r.stderr):
        return
    new = r.stdout.strip()
    check("new name", os.path.basename(new) ==
          "demo-1.0+cu.130-2-cp312-cp312-manylinux_2_17_x86_64.manylinux_2_28_x86_64.whl", new)
    probs = pypi_zip_check.check(new)
    check("retagged wheel passes the PyPI zip rules", not probs, "; ".join(probs))
    with zipfile.ZipFile(new) as z:
        names = z.namelist()
        check("dist-info and data renamed", "demo-1.0+cu.130.dist-info/WHEEL" in names and
              "demo-1.0+cu.130.data/scripts/tool" in names, str(names))
        wheel = z.read("demo-1.0+cu.130.dist-info/WHEEL").decode()
        check("WHEEL tags", "Tag: cp312-cp312-manylinux_2_17_x86_64\n"
              "Tag: cp312-cp312-manylinux_2_28_x86_64\n" in wheel and "Build: 2\n" in wheel
              and "Generator: test" in wheel, wheel)
        md = z.read("demo-1.0+cu.130.dist-info/METADATA").decode()
        check("METADATA Version", "Version: 1.0+cu.130\n" in md, md)
    check("payload copied without recompressing",
          raw_member(src, "demo/_C.so") == raw_member(new, "demo/_C.so"))
    code = ("import sys\nfrom installer.sources import WheelFile\n"
            "with WheelFile.open(sys.argv[1]) as s: s.validate_record(validate_contents=True)\n"
            "print('ok')\n")
    r = run([vpy, "-c", code, new])
    check("installer validate_record after retag", r.stdout.strip() == "ok", r.stderr)
    # --no-local --in-place: the original goes, the new one has no label.
    r = run([CUWHEEL, "retag", new, "--no-local", "--no-build", "--in-place"])
    check("retag --no-local --in-place", r.returncode == 0, r.stderr)
    new2 = r.stdout.strip()
    check("in-place removed the original", not os.path.exists(new) and os.path.exists(new2),
          str(os.listdir(out)))
    check("no local", os.path.basename(new2) ==
          "demo-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux_2_28_x86_64.whl", new2)
    check("round trip passes the rules", not pypi_zip_check.check(new2))
    r = run([CUWHEEL, "retag", new2, "--in-place"])
    check("no-op retag in place", r.returncode == 0 and r.stdout.strip() == new2 and
          os.path.exists(new2), r.stderr)
    check("no-op retag passes the rules", not pypi_zip_check.check(new2))


def hostile(tmp):
    d = os.path.join(tmp, "hostile")
    os.makedirs(d)
    cases = {}

    def w(tag, members, **kw):
        p = os.path.join(d, tag, "demo-1.0-py3-none-any.whl")
        os.makedirs(os.path.dirname(p))
        make_wheel(p, members, **kw)
        cases[tag] = p
        return p

    ok = [("demo/__init__.py", b"x = 1\n" * 100)]
    w("traversal", ok + [("../evil.py", b"boom")])
    w("traversal-deep", ok + [("demo/../../evil.py", b"boom")])
    w("absolute", ok + [("/tmp/evil.py", b"boom")])
    w("backslash", ok + [("demo\\..\\..\\evil.py", b"boom")])
    w("symlink", ok + [("demo/link", b"/etc/passwd")], symlink="demo/link")
    w("duplicate", ok + [("demo/__init__.py", b"y = 2\n")])
    w("garbage", [])
    open(cases["garbage"], "wb").write(os.urandom(5000))
    p = w("truncated", ok + [("demo/big.bin", os.urandom(200000))])
    data = open(p, "rb").read()
    open(p, "wb").write(data[:len(data) // 2])
    p = w("bad-crc", ok)
    patch_headers(p, "demo/__init__.py", ("crc", 0xDEADBEEF))
    p = w("lying-size", ok)
    patch_headers(p, "demo/__init__.py", ("size", 10))
    p = w("absurd-size", ok)
    patch_headers(p, "demo/__init__.py", ("size", 0xFFFFFFF0))
    w("zip-bomb", ok + [("demo/zeros.bin", b"\0" * (64 << 20))])
    w("record-mismatch", ok, extra_record=["demo/missing.py,sha256=abc,3"])
    p = w("record-hash", ok)
    with zipfile.ZipFile(p) as z:
        items = [(i, z.read(i)) for i in z.infolist()]
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        for i, b in items:
            z.writestr(i, b"x = 2\n" * 100 if i.filename == "demo/__init__.py" else b)
    return cases


def test_hostile(tmp):
    cases = hostile(tmp)
    for tag, path in sorted(cases.items()):
        out = os.path.join(tmp, "hostile-out", tag)
        os.makedirs(out)
        r = run([CUWHEEL, "retag", path, "--platform", "linux_x86_64", "-o", out])
        check("hostile %s refused" % tag, r.returncode == 1, "exit %d %s" % (r.returncode,
                                                                           r.stdout + r.stderr))
        check("hostile %s names the archive" % tag, path in r.stderr, r.stderr)
        check("hostile %s writes nothing" % tag, os.listdir(out) == [], str(os.listdir(out)))
        print("  %-16s %s" % (tag, r.stderr.strip().splitlines()[0] if r.stderr else ""))
    check("nothing escaped", not os.path.exists(os.path.join(tmp, "evil.py")))


class _Unseekable:
    def __init__(self, f):
        self.f = f

    def write(self, b):
        return self.f.write(b)

    def flush(self):
        self.f.flush()

    def tell(self):
        raise OSError("unseekable")

    def seekable(self):
        return False


def test_checker_can_fail(tmp):
    """The PyPI rules checker itself: each rule it enforces catches a wheel breaking it."""
    d = os.path.join(tmp, "checker")
    os.makedirs(d)
    good = make_wheel(os.path.join(d, "demo-1.0-py3-none-any.whl"), [("demo/a.py", b"a\n")])
    check("checker passes a good wheel", pypi_zip_check.check(good) == [],
          str(pypi_zip_check.check(good)))
    cases = {}
    p = os.path.join(d, "comment", "demo-1.0-py3-none-any.whl")
    os.makedirs(os.path.dirname(p))
    shutil.copy(good, p)
    with zipfile.ZipFile(p, "a") as z:
        z.comment = b"hi"
    cases["comment"] = p
    p = os.path.join(d, "trailing", "demo-1.0-py3-none-any.whl")
    os.makedirs(os.path.dirname(p))
    open(p, "wb").write(open(good, "rb").read() + b"junk")
    cases["trailing data"] = p
    p = os.path.join(d, "dd", "demo-1.0-py3-none-any.whl")
    os.makedirs(os.path.dirname(p))
    with zipfile.ZipFile(good) as zin, open(p, "wb") as f:
        with zipfile.ZipFile(_Unseekable(f), "w", zipfile.ZIP_DEFLATED) as z:
            for i in zin.infolist():
                z.writestr(i, zin.read(i))
    cases["data descriptor"] = p
    p = os.path.join(d, "bz", "demo-1.0-py3-none-any.whl")
    os.makedirs(os.path.dirname(p))
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(p, "w", zipfile.ZIP_BZIP2) as z:
        for i in zin.infolist():
            z.writestr(i.filename, zin.read(i))
    cases["compression method"] = p
    p = os.path.join(d, "crc", "demo-1.0-py3-none-any.whl")
    os.makedirs(os.path.dirname(p))
    shutil.copy(good, p)
    data = bytearray(open(p, "rb").read())
    struct.pack_into("<I", data, 14, 0x12345678)  # first local header only
    open(p, "wb").write(bytes(data))
    cases["disagree"] = p
    p = os.path.join(d, "unlisted", "demo-1.0-py3-none-any.whl")
    os.makedirs(os.path.dirname(p))
    make_wheel(p, [("demo/a.py", b"a\n")], extra_record=["demo/ghost.py,sha256=x,1"])
    cases["RECORD lists"] = p
    for what, p in sorted(cases.items()):
        probs = pypi_zip_check.check(p)
        check("checker flags %s" % what, any(what in m for m in probs), str(probs))


def main():
    vpy = venv_python()
    tmp = tempfile.mkdtemp(prefix="cuwheel-retag-")
    try:
        print("== test_retag", flush=True)
        test_retag(tmp, vpy)
        print("== test_hostile", flush=True)
        test_hostile(tmp)
        print("== test_checker_can_fail", flush=True)
        test_checker_can_fail(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print("\n%d failure(s):\n  " % len(FAILS) + "\n  ".join(FAILS))
        return 1
    print("all retag checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
