#!/usr/bin/env python3
"""check_gpu.py: on a machine with an NVIDIA GPU and tinyraster installed, rasterise and
interpolate deterministic pseudo-random meshes on the GPU and with the C reference, require
identical face ids and barycentrics within 1e-5 (interpolated values too), and print a table
of timings. Exit 0 when everything matches, 1 on a mismatch, 2 when no GPU can be used.
GPU times are wall-clock per call (best of 3) and include the host <-> device copies, since the
API takes host buffers; CPU times are one call of the C reference.

    python3 tests/gpu/check_gpu.py [--quick]
"""

import array
import math
import sys
import time

import tinyraster as tr

try:
    import numpy as np
except ImportError:
    np = None

TOL = 1e-5


def best_of(fn, repeat):
    best, result = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3, result


def max_abs_diff(a, b):
    """Largest |a - b| over two float32 memoryviews of the same shape."""
    if a.tobytes() == b.tobytes():
        return 0.0
    if np is not None:
        return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
    x = array.array(a.format, a.tobytes())
    y = array.array(b.format, b.tobytes())
    return max(abs(p - q) for p, q in zip(x, y))


def first_difference(a, b, width):
    x = array.array("i", a.tobytes())
    y = array.array("i", b.tobytes())
    for i, (p, q) in enumerate(zip(x, y)):
        if p != q:
            return "pixel (x=%d, y=%d): gpu %d, cpu %d" % (i % width, i // width, p, q)
    return "sizes differ"


def check_case(n_faces, res, prior=False, repeat=3):
    V, F = tr.random_mesh(n_faces, seed=n_faces)
    kw = {}
    if prior:
        # A wavy depth prior in z/w units: rejects part of each face, keeps the rest.
        D = array.array("f", (0.3 * math.sin(i * 0.001) - 0.2 for i in range(res * res)))
        kw = dict(D=D, occlusion_truncation=0.01, use_depth_prior=True)
    t_gpu, (ids_g, bary_g) = best_of(lambda: tr.rasterize(V, F, res, res, **kw), repeat)
    t_cpu, (ids_c, bary_c) = best_of(lambda: tr.rasterize_cpu(V, F, res, res, **kw), 1)
    ok_ids = ids_g.tobytes() == ids_c.tobytes()
    d_bary = max_abs_diff(bary_g, bary_c)
    covered = sum(1 for v in array.array("i", ids_c.tobytes()) if v)
    # Interpolate the clip-space positions (4 channels) from the CPU raster, both ways.
    attr = memoryview(V).cast("B").cast("f", (len(V) // 4, 4))
    t_igpu, out_g = best_of(lambda: tr.interpolate(attr, ids_c, bary_c, F), repeat)
    t_icpu, out_c = best_of(lambda: tr.interpolate_cpu(attr, ids_c, bary_c, F), 1)
    d_interp = max_abs_diff(out_g, out_c)
    d_half = None
    if np is not None:
        a16 = np.frombuffer(V, np.float32).reshape(-1, 4).astype(np.float16)
        h_g = np.asarray(tr.interpolate(a16, ids_c, bary_c, F))
        h_c = np.asarray(tr.interpolate_cpu(a16, ids_c, bary_c, F))
        d_half = float(np.max(np.abs(h_g.astype(np.float64) - h_c.astype(np.float64))))
    ok = ok_ids and d_bary <= TOL and d_interp <= TOL and (d_half is None or d_half == 0.0)
    row = {
        "case": "%d tris%s" % (n_faces, " +prior" if prior else ""),
        "res": "%dx%d" % (res, res),
        "covered": covered,
        "raster gpu ms": t_gpu,
        "raster cpu ms": t_cpu,
        "speedup": t_cpu / t_gpu if t_gpu else float("inf"),
        "ids": "equal" if ok_ids else "DIFFER",
        "max|dbary|": d_bary,
        "interp gpu ms": t_igpu,
        "interp cpu ms": t_icpu,
        "max|dinterp|": d_interp,
        "f16": "n/a" if d_half is None else ("equal" if d_half == 0.0 else "%.3g" % d_half),
        "ok": ok,
    }
    if not ok_ids:
        row["why"] = first_difference(ids_g, ids_c, res)
    return row


def main(argv):
    quick = "--quick" in argv
    if not tr.cuda_available():
        try:
            tr.rasterize(array.array("f", [0, 0, 0, 1]), array.array("i"), 1, 1)
        except RuntimeError as e:
            print("check_gpu: %s" % e, file=sys.stderr)
        return 2
    info = tr.device_info(0)
    drv, rt = info["driver_version"], info["runtime_version"]
    print(
        "tinyraster %s on %s (sm_%d%d, %d SMs, %.0f GiB); driver CUDA %d.%d, runtime %d.%d"
        % (
            tr.__version__,
            info["name"],
            *info["compute_capability"],
            info["multiprocessors"],
            info["total_memory"] / 2**30,
            drv // 1000,
            drv % 1000 // 10,
            rt // 1000,
            rt % 1000 // 10,
        )
    )
    try:
        with open("/proc/driver/nvidia/version") as f:
            print(f.readline().strip())
    except OSError:
        pass
    tr.rasterize(*tr.random_mesh(10), 16, 16)  # warm up: context creation, module load

    cases = [(n, r, False) for r in (512, 2048) for n in (1, 1000, 100000)]
    cases.append((1000, 512, True))
    cases.append((100000, 2048, True))
    if quick:
        cases = [c for c in cases if c[1] == 512]
    cols = ["case", "res", "covered", "raster gpu ms", "raster cpu ms", "speedup", "ids",
            "max|dbary|", "interp gpu ms", "interp cpu ms", "max|dinterp|", "f16"]
    print(" | ".join(cols))
    failed = 0
    for n, r, prior in cases:
        row = check_case(n, r, prior)
        cells = []
        for c in cols:
            v = row[c]
            cells.append("%.3g" % v if isinstance(v, float) else str(v))
        print(" | ".join(cells) + ("" if row["ok"] else "   <-- MISMATCH " + row.get("why", "")))
        sys.stdout.flush()
        failed += not row["ok"]
    print("%s: %d of %d cases match" % ("FAIL" if failed else "OK", len(cases) - failed,
                                         len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
