#!/usr/bin/env python3
"""check_pybind11_gpu.py: on a machine with an NVIDIA GPU, the pybind11-kind wheel of
tests/integration/test_pybind11_ext.py's fixture (pbx: a .cu kernel in the shared kernel
archive, one pybind11 binding) sees the GPU and computes what the CPU computes.

usage: python3 check_pybind11_gpu.py   (with the pbx wheel installed or on PYTHONPATH)"""
import random
import sys

import pbx

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


n = pbx.cuda_devices()
check(n >= 1, f"pbx.cuda_devices() sees the GPU ({n})")
rng = random.Random(7)
for size in (1, 255, 256, 257, 100000):
    v = [rng.uniform(-1e3, 1e3) for _ in range(size)]
    s = rng.uniform(-4, 4)
    got = pbx.scale_gpu(v, s)
    want = [pbx.scale(x, s) for x in v]  # the host function: float32 multiply
    check(len(got) == size and got == want,
          f"scale_gpu of {size} floats by {s:.4f} equals the CPU's, bit for bit")
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
