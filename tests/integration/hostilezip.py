"""hostilezip: a tiny zip writer that lets a test lie (sizes, CRCs, offsets, names, attributes,
methods, zip64 fields), for the hostile-wheel tests. Not a test itself (no test_ prefix)."""
import base64
import hashlib
import struct
import zlib


def record_line(name, data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={h},{len(data)}\n"


class Member:
    """One entry. Fields left None are computed honestly from data."""

    def __init__(self, name, data=b"", method=8, mode=0o100644, crc=None, usize=None,
                 csize=None, flags=0, zip64_usize=None, local_name=None, offset_of=None,
                 compressed=None):
        self.name = name.encode() if isinstance(name, str) else name
        self.data, self.method, self.mode, self.flags = data, method, mode, flags
        self.crc, self.usize, self.csize = crc, usize, csize
        self.zip64_usize = zip64_usize  # declare this size through a zip64 extra field
        self.local_name = local_name      # a different name in the local header
        self.offset_of = offset_of        # index of an earlier member whose data this reuses
        self.compressed = compressed      # raw bytes to store instead of compressing data


def build(members, comment=b""):
    """Returns the archive bytes."""
    out = bytearray()
    central = bytearray()
    offsets = []
    for m in members:
        if m.compressed is not None:
            comp = m.compressed
        elif m.method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            comp = c.compress(m.data) + c.flush()
        else:
            comp = m.data
        crc = m.crc if m.crc is not None else zlib.crc32(m.data) & 0xffffffff
        usize = m.usize if m.usize is not None else len(m.data)
        csize = m.csize if m.csize is not None else len(comp)
        extra = b""
        if m.zip64_usize is not None:
            extra = struct.pack("<HHQQ", 1, 16, m.zip64_usize, len(comp))
            usize, csize = 0xffffffff, 0xffffffff
        if m.offset_of is not None:
            off = offsets[m.offset_of]
        else:
            off = len(out)
            lname = m.local_name.encode() if m.local_name else m.name
            out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 45 if extra else 20, m.flags,
                               m.method, 0, 0x21, crc, csize, usize, len(lname), len(extra))
            out += lname + extra + comp
        offsets.append(off)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x0314, 45 if extra else 20,
                               m.flags, m.method, 0, 0x21, crc, csize, usize, len(m.name),
                               len(extra), 0, 0, 0, (m.mode & 0xffff) << 16, off)
        central += m.name + extra
    cd_off = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(members), len(members), len(central),
                       cd_off, len(comment)) + comment
    return bytes(out)


def wheel_members(payload, name="demo", version="1.0", tag="cp312-cp312-linux_x86_64",
                  record=None, skip_record_for=()):
    """payload: [Member]; adds METADATA, WHEEL and an honest RECORD (unless record is given)."""
    di = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n".encode()
    py, abi, plat = tag.split("-")
    wheel = (f"Wheel-Version: 1.0\nGenerator: hostile\nRoot-Is-Purelib: false\n"
             f"Tag: {py}-{abi}-{plat}\n").encode()
    ms = list(payload) + [Member(f"{di}/METADATA", meta), Member(f"{di}/WHEEL", wheel)]
    if record is None:
        record = "".join(record_line(m.name.decode("utf-8", "replace"), m.data) for m in ms
                         if m.name.decode("utf-8", "replace") not in skip_record_for)
        record += f"{di}/RECORD,,\n"
    ms.append(Member(f"{di}/RECORD", record.encode()))
    return ms
