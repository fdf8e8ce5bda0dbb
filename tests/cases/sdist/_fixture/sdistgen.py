"""sdistgen.py: writes the test sdists, good and hostile, byte by byte (tarfile refuses to
write some of the hostile members, and its own extraction filters are what is under test)."""
import gzip
import io
import tarfile

PKG_INFO = """Metadata-Version: 2.4
Name: demo
Version: 1.0
Summary: A demo built from its sdist
Home-page: https://example.org/demo
Requires-Python: >=3.10
License-File: LICENSE
Requires-Dist: numpy
Provides-Extra: test
Requires-Dist: pytest; extra == "test"
Dynamic: summary

The long description.
"""

GOOD = {
    "PKG-INFO": PKG_INFO,
    "LICENSE": "MIT\n",
    "pkg/__init__.py": "",
    "kern/k.cu": "__global__ void k() {}\n",
    "src/ext.c": "int x;\n",
}


def header(name, size=0, type_=b"0", link="", mode=0o644, magic=b"ustar\x0000",
           prefix="", bad_checksum=False, size_field=None):
    h = bytearray(512)
    nb = name.encode() if isinstance(name, str) else name
    h[0:len(nb)] = nb
    h[100:108] = b"%07o\x00" % mode
    h[108:116] = b"0000000\x00"
    h[116:124] = b"0000000\x00"
    h[124:136] = size_field if size_field is not None else b"%011o\x00" % size
    h[136:148] = b"00000000000\x00"
    h[156:157] = type_
    lb = link.encode()
    h[157:157 + len(lb)] = lb
    h[257:265] = magic
    pb = prefix.encode()
    h[345:345 + len(pb)] = pb
    h[148:156] = b"        "
    s = sum(h) + (1 if bad_checksum else 0)
    h[148:156] = b"%06o\x00 " % s
    return bytes(h)


def member(name, data=b"", **kw):
    if isinstance(data, str):
        data = data.encode()
    pad = (512 - len(data) % 512) % 512
    return header(name, size=len(data), **kw) + data + b"\0" * pad


def pax(records, name="pax"):
    body = b""
    for k, v in records.items():
        rec = (" %s=%s\n" % (k, v)).encode()
        n = len(rec) + 1
        while len(str(n)) + len(rec) != n:
            n += 1
        body += str(n).encode() + rec
    return member(name, body, type_=b"x")


def good_members(top="demo-1.0"):
    out = member(top + "/", type_=b"5", mode=0o755)
    for path, text in GOOD.items():
        out += member(top + "/" + path, text)
    return out


def write(path, raw, end=True, compress=True):
    if end:
        raw += b"\0" * 1024
    data = gzip.compress(raw, mtime=0) if compress else raw
    with open(path, "wb") as f:
        f.write(data)
