#!/usr/bin/env python3
"""test_hostile_wheels.py: hostile archives fed to `cuwheel audit`, `cuwheel retag` and
`cuwheel index`, table-driven: path traversal, absolute names, symlinks and other non-regular
members, duplicate names, zip bombs (ratio, declared size, overlapping entries), truncated and
garbage archives, lying sizes and CRCs, broken RECORD, encryption, odd methods and names. Each
must be refused cleanly: exit 1, a message naming the archive (and the member when there is
one), no crash or sanitizer report, nothing written outside the destination (a canary dir next
to it stays empty, retag's output dir stays empty, index's site is not created). Run it with an
ASan build by pointing $CUWHEEL at it."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostilezip as hz  # noqa: E402
from hostilezip import Member as M  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/hard/cuwheel"))
WHEEL = "demo-1.0-cp312-cp312-linux_x86_64.whl"
A_PY = b"print('hello')\n" * 20


def honest(payload=None, **kw):
    return hz.build(hz.wheel_members(payload or [M("demo/a.py", A_PY)], **kw))


def record_with(rows):
    return "".join(rows) + "demo-1.0.dist-info/RECORD,,\n"


def std_rows():
    meta = b"Metadata-Version: 2.4\nName: demo\nVersion: 1.0\n"
    wheel = (b"Wheel-Version: 1.0\nGenerator: hostile\nRoot-Is-Purelib: false\n"
             b"Tag: cp312-cp312-linux_x86_64\n")
    return [hz.record_line("demo-1.0.dist-info/METADATA", meta),
            hz.record_line("demo-1.0.dist-info/WHEEL", wheel)]


def cases(canary):
    """(name, archive bytes, member the message must name or None)."""
    zeros = bytes(64 << 20)
    rng = random.Random(10)
    good = honest()
    yield "traversal", honest([M("../canary/evil.py", b"x")]), "../canary/evil.py"
    yield "traversal-nested", honest([M("demo/../../canary/evil.py", b"x")]), \
        "demo/../../canary/evil.py"
    yield "absolute-name", honest([M(canary + "/abs.py", b"x")]), canary + "/abs.py"
    yield "backslash-name", honest([M("..\\canary\\evil.py", b"x")]), "canary"
    yield "symlink-member", honest([M("demo/link.py", b"../../canary/x", mode=0o120777)]), \
        "demo/link.py"
    yield "fifo-member", honest([M("demo/fifo", b"", mode=0o010644)]), "demo/fifo"
    yield "duplicate-name", honest([M("demo/a.py", A_PY), M("demo/a.py", b"evil = 1\n")]), \
        "demo/a.py"
    yield "bomb-ratio", honest([M("demo/zeros.bin", zeros)]), "demo/zeros.bin"
    yield "bomb-declared-size", honest([M("demo/huge.bin", b"x" * 100,
                                          zip64_usize=20 << 30)]), "demo/huge.bin"
    yield "bomb-overlapping-entries", honest(
        [M("demo/a.py", A_PY)] + [M(f"demo/o{i}.py", A_PY, offset_of=0) for i in range(50)]), \
        "demo/o"
    yield "truncated-half", good[:len(good) // 2], None
    yield "truncated-central-directory", good[:-30], None
    yield "garbage", bytes(rng.randrange(256) for _ in range(4096)), None
    yield "empty-file", b"", None
    yield "lying-crc", honest([M("demo/a.py", A_PY, crc=0x12345678)]), "demo/a.py"
    yield "lying-size-small", honest([M("demo/a.py", A_PY, usize=len(A_PY) - 10)]), "demo/a.py"
    yield "lying-size-large", honest([M("demo/a.py", A_PY, usize=len(A_PY) + 1000)]), \
        "demo/a.py"
    yield "lying-compressed-size", honest([M("demo/a.py", A_PY, csize=1 << 20)]), "demo/a.py"
    yield "garbage-deflate-stream", honest([M("demo/a.py", A_PY, compressed=b"\xff" * 64)]), \
        "demo/a.py"
    yield "record-hash-mismatch", hz.build(hz.wheel_members(
        [M("demo/a.py", A_PY)],
        record=record_with([hz.record_line("demo/a.py", b"other")] + std_rows()))), "demo/a.py"
    yield "record-size-mismatch", hz.build(hz.wheel_members(
        [M("demo/a.py", A_PY)],
        record=record_with([hz.record_line("demo/a.py", A_PY).replace(
            f",{len(A_PY)}\n", ",1\n")] + std_rows()))), "demo/a.py"
    yield "record-missing-member", hz.build(hz.wheel_members(
        [M("demo/a.py", A_PY)], skip_record_for=("demo/a.py",))), "demo/a.py"
    yield "record-lists-ghost", hz.build(hz.wheel_members(
        [M("demo/a.py", A_PY)],
        record=record_with([hz.record_line("demo/a.py", A_PY),
                            hz.record_line("demo/ghost.py", b"")] + std_rows()))), \
        "demo/ghost.py"
    yield "record-malformed-row", hz.build(hz.wheel_members(
        [M("demo/a.py", A_PY)], record="demo/a.py,sha256=abc\n")), "RECORD"
    yield "record-absent", hz.build(hz.wheel_members([M("demo/a.py", A_PY)])[:-1]), "RECORD"
    yield "encrypted-member", honest([M("demo/a.py", A_PY, flags=1)]), "demo/a.py"
    yield "method-bzip2", honest([M("demo/a.py", A_PY, method=12)]), "demo/a.py"
    yield "name-control-char", honest([M("demo/a\x01.py", b"x")]), "demo/a"
    yield "name-not-utf8", honest([M(b"demo/\xff.py", b"x")]), "demo/"
    yield "local-name-differs", honest([M("demo/a.py", A_PY, local_name="demo/b.py")]), \
        "demo/a.py"


def tree(path):
    out = []
    for d, dirs, files in os.walk(path):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(d, n), path))
    return sorted(out)


def run(args, cwd):
    return subprocess.run([CUWHEEL] + args, cwd=cwd, capture_output=True, text=True,
                          errors="replace", timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})


def check(label, p, member, problems):
    if os.environ.get("VERBOSE"):
        print(f"  [{label} rc={p.returncode}] " + (p.stdout + p.stderr).strip().replace(
            "\n", "\n    ")[:600])
    err = p.stderr + p.stdout  # audit reports on stdout, the others on stderr
    if p.returncode != 1:
        problems.append(f"{label}: exit {p.returncode}, expected 1")
    if WHEEL not in err:
        problems.append(f"{label}: message does not name the archive")
    if member and member not in err:
        problems.append(f"{label}: message does not name member {member!r}")
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:", "Segmentation"):
        if bad in err:
            problems.append(f"{label}: sanitizer/crash report ({bad})")


def main():
    failures = []
    counted = 0
    with tempfile.TemporaryDirectory(prefix="cuwheel-hostile-") as tmp:
        for name, data, member in cases(os.path.join(tmp, "w", "canary")):
            work = os.path.join(tmp, "w")
            shutil.rmtree(work, ignore_errors=True)
            for d in ("canary", "dist", "out"):
                os.makedirs(os.path.join(work, d))
            path = os.path.join(work, "dist", WHEEL)
            with open(path, "wb") as f:
                f.write(data)
            problems = []
            p = run(["audit", path], work)
            check("audit", p, member, problems)
            p = run(["retag", "--local", "cu999", "-o", "out", path], work)
            check("retag", p, member, problems)
            if tree(os.path.join(work, "out")):
                problems.append(f"retag wrote {tree(os.path.join(work, 'out'))}")
            p = run(["index", "dist", "--out", "site"], work)
            check("index", p, member, problems)
            if os.path.exists(os.path.join(work, "site")):
                problems.append("index created the site")
            if tree(os.path.join(work, "canary")):
                problems.append(f"canary dir holds {tree(os.path.join(work, 'canary'))}")
            if sorted(os.listdir(work)) != ["canary", "dist", "out"]:
                problems.append(f"work dir holds {sorted(os.listdir(work))}")
            if tree(os.path.join(work, "dist")) != [WHEEL]:
                problems.append(f"dist holds {tree(os.path.join(work, 'dist'))}")
            with open(path, "rb") as f:
                if f.read() != data:
                    problems.append("the input wheel was modified")
            counted += 1
            if problems:
                failures.append(name)
                print(f"FAIL {name}:\n  " + "\n  ".join(problems))
            else:
                print(f"ok   {name}")
    # The control: an honest wheel of the same shape goes through retag and index, so the
    # refusals above are about the hostility and not about the fixture.
    with tempfile.TemporaryDirectory(prefix="cuwheel-hostile-ok-") as tmp:
        os.makedirs(os.path.join(tmp, "dist"))
        with open(os.path.join(tmp, "dist", WHEEL), "wb") as f:
            f.write(honest())
        for args in (["retag", "--local", "cu999", "-o", "out", "dist/" + WHEEL],
                     ["index", "dist", "--out", "site"]):
            p = run(args, tmp)
            if p.returncode != 0:
                failures.append("control")
                print(f"FAIL control: {' '.join(args)} exit {p.returncode}: {p.stderr}")
    if failures:
        print(f"{len(failures)} of {counted} hostile wheels not refused cleanly: "
              + ", ".join(failures))
        return 1
    print(f"{counted} hostile wheels refused cleanly by audit, retag and index")
    return 0


if __name__ == "__main__":
    sys.exit(main())
