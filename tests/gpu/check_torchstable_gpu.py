"""check_torchstable_gpu.py: the installed torchstable wheel (torch's stable ABI, one abi3 wheel
for every Python and torch from 2.11) computes on the GPU what its CPU path computes.

Run on a machine with an NVIDIA GPU, with the wheel installed next to a torch >= 2.11:
    python3 tests/gpu/check_torchstable_gpu.py [--json OUT.json]
Prints the GPU, driver, torch and the comparison; exit 0 when the CUDA op equals the CPU op bit
for bit (both are one float32 fma per element) on every case, 1 on a mismatch, 2 when there is
no GPU (this is a GPU test: nothing to prove).
"""
import json
import subprocess
import sys

import torch


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def main(argv):
    if not torch.cuda.is_available():
        print("check_torchstable_gpu: no CUDA device visible to torch %s" % torch.__version__)
        return 2
    import torchstable

    props = torch.cuda.get_device_properties(0)
    info = {"gpu": props.name, "capability": "%d.%d" % (props.major, props.minor),
            "driver": driver_version(), "torch": torch.__version__,
            "torch_cuda": torch.version.cuda, "module": torchstable._C.__file__, "cases": []}
    ok = True
    g = torch.Generator().manual_seed(7)
    for n, a in ((1, 2.0), (1000, -0.5), (1 << 20, 1.25), ((1 << 24) + 3, 3.0e-3)):
        x = torch.randn(n, generator=g)
        y = torch.randn(n, generator=g)
        cpu = torchstable.saxpy(a, x, y)
        gpu = torchstable.saxpy(a, x.cuda(), y.cuda())
        torch.cuda.synchronize()
        diff = int((gpu.cpu() != cpu).sum())
        ref = (x.double() * float(torch.tensor(a, dtype=torch.float32)) + y.double()).float()
        case = {"n": n, "a": a, "mismatches_vs_cpu": diff,
                "max_abs_vs_float64": float((gpu.cpu() - ref).abs().max())}
        info["cases"].append(case)
        ok &= diff == 0
        print("n=%-9d a=%-8g mismatches vs CPU: %d  max |gpu - fp64 ref|: %.3g"
              % (n, a, diff, case["max_abs_vs_float64"]))
    # A second stream and a second device index path: the op runs on the current stream.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        z = torchstable.saxpy(2.0, torch.ones(4096, device="cuda"), torch.ones(4096, device="cuda"))
    s.synchronize()
    ok &= bool((z == 3.0).all())
    info["ok"] = ok
    print("GPU %s (sm_%s), driver %s, torch %s (CUDA %s): %s"
          % (info["gpu"], info["capability"].replace(".", ""), info["driver"], info["torch"],
             info["torch_cuda"], "equal" if ok else "MISMATCH"))
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(info, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
