#!/usr/bin/env python3
"""test_big_wheel: audit, retag and index take time linear in a wheel's members, not quadratic.

Each member used to be looked up in RECORD and in the zip's member list by a scan, so a
40k-member audit took 10.9 s and 70k 36.8 s (issue 19). For each command the CPU seconds
(getrusage: independent of the machine's load) on 10k and on 40k members must grow by less
than 7x (a quadratic lookup gives ~16x; linear work ~4x); the audit of 40k members must also
take under 6 CPU seconds (10.9 before)."""
import os
import sys
import tempfile

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bigwheel  # noqa: E402

CUWHEEL = os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel")
SANITIZED = "asan" in CUWHEEL


def main():
    fails = []
    with tempfile.TemporaryDirectory(prefix="cuwheel-big-") as work:
        n = 2500 if SANITIZED else 10000  # ASan is ~10x slower: the ratio is what counts
        small = bigwheel.measure(CUWHEEL, n, 1, os.path.join(work, "small"))
        big = bigwheel.measure(CUWHEEL, 4 * n, 1, os.path.join(work, "big"))
    for name in ("audit", "retag", "index"):
        s, b = small[name][1], big[name][1]
        ratio = b / max(s, 0.05)
        print(f"{name}: {n} members {s:.2f} cpu-s, {4 * n} {b:.2f} cpu-s: x{ratio:.1f}")
        if ratio >= 7:
            fails.append(f"{name}: 4x the members took {ratio:.1f}x the CPU time (quadratic?)")
    limit = 30.0 if SANITIZED else 6.0
    if big["audit"][1] >= limit:
        fails.append(f"audit of {4 * n} members: {big['audit'][1]:.2f} cpu-s, limit {limit}")
    for f in fails:
        print("FAIL:", f)
    print("test_big_wheel:", "FAILED" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
