#!/usr/bin/env python3
"""wheeldiff.py A.whl B.whl: says how two wheels that should be byte-identical differ, for a
test's failure message: members only in one, members whose bytes differ (sizes and sha256), the
zip metadata that differs (order, timestamps, modes, compression) and, for an ELF member, which
sections differ (readelf -S names, compared with objcopy --dump-section). Exits 0 when the files
are identical, 1 when they differ."""
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile


def sha(data):
    return hashlib.sha256(data).hexdigest()[:16]


def elf_sections(path):
    """Section name -> sha256 of its bytes, from objcopy (binutils)."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("[") and "]" in line:
            fields = line.split("]", 1)[1].split()
            if fields and fields[0] not in ("Name", "NULL") and fields[1:2] != ["NOBITS"]:
                names.append(fields[0])
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            dst = os.path.join(tmp, "s")
            r = subprocess.run(["objcopy", "-O", "binary", f"--dump-section={n}={dst}", path,
                                os.path.join(tmp, "o")], capture_output=True)
            if r.returncode == 0 and os.path.exists(dst):
                found[n] = sha(open(dst, "rb").read())
                os.unlink(dst)
    return found


def elf_diff(a, b):
    with tempfile.TemporaryDirectory() as tmp:
        pa, pb = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        open(pa, "wb").write(a)
        open(pb, "wb").write(b)
        sa, sb = elf_sections(pa), elf_sections(pb)
    names = sorted(set(sa) | set(sb))
    return [n for n in names if sa.get(n) != sb.get(n)]


def diff(a_path, b_path):
    lines = []
    with open(a_path, "rb") as f, open(b_path, "rb") as g:
        if f.read() == g.read():
            return lines
    with zipfile.ZipFile(a_path) as za, zipfile.ZipFile(b_path) as zb:
        ia = {i.filename: i for i in za.infolist()}
        ib = {i.filename: i for i in zb.infolist()}
        for n in sorted(set(ia) - set(ib)):
            lines.append(f"only in {a_path}: {n}")
        for n in sorted(set(ib) - set(ia)):
            lines.append(f"only in {b_path}: {n}")
        if [i.filename for i in za.infolist()] != [i.filename for i in zb.infolist()]:
            lines.append("member order differs")
        for n in sorted(set(ia) & set(ib)):
            x, y = ia[n], ib[n]
            meta = [k for k in ("date_time", "external_attr", "compress_type", "extra",
                                "create_system") if getattr(x, k) != getattr(y, k)]
            if meta:
                lines.append(f"{n}: zip fields differ: {', '.join(meta)}")
            da, db = za.read(n), zb.read(n)
            if da == db:
                continue
            lines.append(f"{n}: {len(da)} bytes sha256 {sha(da)} vs {len(db)} bytes {sha(db)}")
            if da[:4] == b"\x7fELF" and db[:4] == b"\x7fELF":
                secs = elf_diff(da, db)
                lines.append(f"  ELF sections that differ: {', '.join(secs) or '(none: headers)'}")
            elif n.endswith(("RECORD", "METADATA", "WHEEL")):
                la, lb = da.decode(errors="replace").splitlines(), db.decode(errors="replace").splitlines()
                lines += [f"  - {l}" for l in la if l not in lb][:10]
                lines += [f"  + {l}" for l in lb if l not in la][:10]
    if not lines:
        lines.append("the zip containers differ outside the members (comment, central directory)")
    return lines


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    lines = diff(argv[1], argv[2])
    for line in lines:
        print(line)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
