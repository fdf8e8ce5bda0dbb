#!/usr/bin/env python3
"""pypi_zip_check.py: checks wheels against the zip rules PyPI applies on upload.

Data descriptors, archive comment, trailing data, duplicate names, compression method,
local/central header agreement, UTF-8 names (flag bit 11 for non-ASCII, no control
characters), and RECORD listing exactly the members with right hashes and sizes. Raw bytes
are parsed here on purpose: zipfile hides several of these. Usage: pypi_zip_check.py WHEEL...
(exit 1 and one line per problem when any is found). Importable: check(path) -> [problems].
"""
import base64
import csv
import hashlib
import io
import struct
import sys
import zipfile

EOCD = b"PK\x05\x06"
EOCD64 = b"PK\x06\x06"
LOC64 = b"PK\x06\x07"
CEN = b"PK\x01\x02"
LOC = b"PK\x03\x04"


def _zip64_extra(extra, size, csize, off):
    i = 0
    while i + 4 <= len(extra):
        hid, ln = struct.unpack_from("<HH", extra, i)
        if hid == 1:
            vals = list(struct.unpack_from("<%dQ" % (ln // 8), extra, i + 4))
            if size == 0xFFFFFFFF and vals:
                size = vals.pop(0)
            if csize == 0xFFFFFFFF and vals:
                csize = vals.pop(0)
            if off == 0xFFFFFFFF and vals:
                off = vals.pop(0)
        i += 4 + ln
    return size, csize, off


def check(path):
    probs = []
    data = open(path, "rb").read()
    e = data.rfind(EOCD, max(0, len(data) - 65557))
    if e < 0:
        return ["no end-of-central-directory record"]
    (_, _, _, n_disk, n_total, cd_size, cd_off, clen) = struct.unpack_from("<4sHHHHIIH", data, e)
    if clen:
        probs.append("archive comment of %d bytes" % clen)
    if e + 22 + clen != len(data):
        probs.append("%d bytes of trailing data after the end record" % (len(data) - e - 22 - clen))
    cd_end_expected = e
    if cd_off == 0xFFFFFFFF or n_total == 0xFFFF or cd_size == 0xFFFFFFFF:
        loc = e - 20
        if data[loc:loc + 4] != LOC64:
            return probs + ["zip64 fields without a zip64 locator"]
        (eo,) = struct.unpack_from("<Q", data, loc + 8)
        if data[eo:eo + 4] != EOCD64:
            return probs + ["bad zip64 end record"]
        n_total, cd_size, cd_off = struct.unpack_from("<QQQ", data, eo + 32)
        cd_end_expected = eo
    if cd_off + cd_size != cd_end_expected:
        probs.append("data between the central directory and the end record")
    names, seen = [], set()
    o = cd_off
    next_local = 0
    for k in range(n_total):
        if data[o:o + 4] != CEN:
            probs.append("central entry %d: bad signature" % k)
            break
        (ver_made, ver_need, flags, method, mtime, mdate, crc, csize, size, nlen, xlen, clen2,
         _disk, _iattr, _eattr, off) = struct.unpack_from("<HHHHHHIIIHHHHHII", data, o + 4)
        raw = data[o + 46:o + 46 + nlen]
        extra = data[o + 46 + nlen:o + 46 + nlen + xlen]
        o += 46 + nlen + xlen + clen2
        size, csize, off = _zip64_extra(extra, size, csize, off)
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            probs.append("%r: name is not UTF-8" % raw)
            name = raw.decode("latin-1")
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            probs.append("%r: control character in the name" % name)
        if not raw.isascii() and not flags & 0x800:
            probs.append("%s: non-ASCII name without the UTF-8 flag" % name)
        if flags & 0x8:
            probs.append("%s: data descriptor (flag bit 3)" % name)
        if flags & 0x1:
            probs.append("%s: encrypted" % name)
        if method not in (0, 8):
            probs.append("%s: compression method %d (PyPI allows stored and deflate)" % (name, method))
        if name in seen:
            probs.append("%s: duplicate name" % name)
        seen.add(name)
        if clen2:
            probs.append("%s: entry comment" % name)
        if off != next_local:
            probs.append("%s: local header at %d, expected %d (gap or overlap)" % (name, off, next_local))
        if data[off:off + 4] != LOC:
            probs.append("%s: no local header at %d" % (name, off))
            continue
        (lver, lflags, lmethod, ltime, ldate, lcrc, lcsize, lsize, lnlen, lxlen) = struct.unpack_from(
            "<HHHHHIIIHH", data, off + 4)
        lraw = data[off + 30:off + 30 + lnlen]
        lextra = data[off + 30 + lnlen:off + 30 + lnlen + lxlen]
        lsize, lcsize, _ = _zip64_extra(lextra, lsize, lcsize, 0)
        for what, a, b in (("version needed", lver, ver_need), ("flags", lflags, flags),
                           ("method", lmethod, method), ("time", ltime, mtime), ("date", ldate, mdate),
                           ("crc", lcrc, crc), ("compressed size", lcsize, csize), ("size", lsize, size),
                           ("name", lraw, raw)):
            if a != b:
                probs.append("%s: local and central headers disagree on %s" % (name, what))
        next_local = off + 30 + lnlen + lxlen + csize
        names.append(name)
    if next_local != cd_off and not probs:
        probs.append("%d bytes between the last member and the central directory" % (cd_off - next_local))
    probs += _check_record(path, names)
    return probs


def _check_record(path, names):
    probs = []
    dist_infos = {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    if len(dist_infos) != 1:
        return ["expected exactly one .dist-info directory, found %s" % sorted(dist_infos)]
    di = dist_infos.pop()
    base = path.rsplit("/", 1)[-1]
    parts = base[:-4].split("-")
    if di != "%s-%s.dist-info" % (parts[0], parts[1]):
        probs.append("%s does not match the file name %s" % (di, base))
    rec = di + "/RECORD"
    with zipfile.ZipFile(path) as z:
        if rec not in names:
            return probs + ["no " + rec]
        rows = list(csv.reader(io.TextIOWrapper(z.open(rec), encoding="utf-8", newline="")))
        listed = {}
        for row in rows:
            if not row:
                continue
            if len(row) != 3:
                probs.append("RECORD row %r has %d fields" % (row, len(row)))
                continue
            if row[0] in listed:
                probs.append("RECORD lists %s twice" % row[0])
            listed[row[0]] = row
        files = [n for n in names if not n.endswith("/")]
        for n in files:
            if n not in listed:
                probs.append("%s is not listed in RECORD" % n)
                continue
            _, h, s = listed[n]
            if n == rec:
                if h or s:
                    probs.append("RECORD's own row must be 'RECORD,,'")
                continue
            algo, _, digest = h.partition("=")
            if algo != "sha256" or digest.endswith("="):
                probs.append("%s: hash %r is not unpadded urlsafe sha256" % (n, h))
                continue
            blob = z.read(n)
            want = base64.urlsafe_b64encode(hashlib.sha256(blob).digest()).rstrip(b"=").decode()
            if digest != want:
                probs.append("%s: RECORD hash differs from the content" % n)
            if s != str(len(blob)):
                probs.append("%s: RECORD size %s, content %d" % (n, s, len(blob)))
        for n in listed:
            if n not in files:
                probs.append("RECORD lists %s, which is not in the archive" % n)
        if files and files[-1] != rec and not probs:
            pass
        order = [n for n in files]
        first_di = next((i for i, n in enumerate(order) if n.startswith(di + "/")), len(order))
        if any(not n.startswith(di + "/") for n in order[first_di:]):
            probs.append(".dist-info members are not last")
    return probs


def main(argv):
    bad = 0
    for p in argv:
        for msg in check(p):
            print("%s: %s" % (p, msg))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
