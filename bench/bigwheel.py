#!/usr/bin/env python3
"""bench/bigwheel.py: audit, retag and index of a wheel with many members (issue 19, class 9).

Writes a valid pure-Python wheel of N members (default 100,000: one small module each, RECORD
complete) and times `cuwheel audit`, `cuwheel retag` and `cuwheel index` on it: wall seconds and
CPU seconds (user + system of cuwheel, from getrusage), the best of RUNS. Before member lookups
were binary searches (record_find, zip_reader_find) a 70k-member audit took 36.8 s.

usage: bench/bigwheel.py [--members N] [--runs R] [--cuwheel PATH] [--goal SECONDS]
Exits 1 when the audit's CPU time is over the goal (default 2 s).
"""
import argparse
import base64
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_wheel(out_dir, n):
    """A pure wheel demo-1.0 with n modules demo/m<i>.py; returns its path."""
    di = "demo-1.0.dist-info"
    members = {f"demo/m{i}.py": b"x = %d\n" % i for i in range(n)}
    members["demo/__init__.py"] = b""
    members[f"{di}/METADATA"] = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
    members[f"{di}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: bigwheel\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    rows = []
    for name, data in members.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{name},sha256={h},{len(data)}\n")
    rows.append(f"{di}/RECORD,,\n")
    members[f"{di}/RECORD"] = "".join(rows).encode()
    path = os.path.join(out_dir, "demo-1.0-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            zi = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return path


def timed(cmd):
    """Runs cmd (must succeed); returns (wall s, cpu s)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bigwheel: failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return wall, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime


def measure(cuwheel, n, runs, work):
    """{"audit": (wall, cpu), "retag": ..., "index": ...}, best of runs, for an n-member wheel."""
    src = os.path.join(work, "src")
    os.makedirs(src, exist_ok=True)
    whl = make_wheel(src, n)
    res = {}
    for _ in range(runs):
        out = os.path.join(work, "out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for name, cmd in (("audit", [cuwheel, "audit", whl]),
                          ("retag", [cuwheel, "retag", whl, "--local", "cu130", "-o", out]),
                          ("index", [cuwheel, "index", src, "--out",
                                     os.path.join(out, "site")])):
            w, c = timed(cmd)
            if name not in res or c < res[name][1]:
                res[name] = (w, c)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--members", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--cuwheel", default=os.environ.get("CUWHEEL") or
                    os.path.join(ROOT, "build", "ci", "cuwheel"))
    ap.add_argument("--goal", type=float, default=2.0)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cuwheel-bigwheel-") as work:
        t0 = time.monotonic()
        res = measure(os.path.abspath(a.cuwheel), a.members, a.runs, work)
        print(f"bigwheel: {a.members} members, best of {a.runs} "
              f"(load average {os.getloadavg()[0]:.1f}; {time.monotonic() - t0:.0f}s in all)")
    for name, (w, c) in res.items():
        print(f"  {name:<6} wall {w:6.2f}s   cpu {c:6.2f}s")
    ok = res["audit"][1] < a.goal
    print(f"audit cpu {res['audit'][1]:.2f}s, goal < {a.goal:.1f}s: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
