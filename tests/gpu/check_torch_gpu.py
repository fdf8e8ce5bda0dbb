"""check_torch_gpu.py: the installed torchext wheel's CUDA ops against the pure-torch reference.

Run on a machine with an NVIDIA GPU, with the example wheel installed next to its torch:
    python3 tests/gpu/check_torch_gpu.py [--json OUT.json]
Prints the GPU, driver, torch and the maximum errors; exit 0 when every case is within
tolerance, 1 on a mismatch, 2 when there is no GPU (this is a GPU test: nothing to prove).
"""
import json
import subprocess
import sys
import time

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
        print("check_torch_gpu: no CUDA device visible to torch %s" % torch.__version__)
        return 2
    import torchext

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    info = {
        "gpu": props.name,
        "capability": "%d.%d" % (props.major, props.minor),
        "driver": driver_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "torchext_file": torchext._C.__file__,
        "built_with_torch": torchext._C.built_with_torch,
        "cases": [],
    }
    g = torch.Generator(device="cpu").manual_seed(0)
    ok = True
    # (name, op, reference, make inputs, rtol, atol). The kernel may fuse x + alpha*y into one
    # FMA where torch rounds twice, and tanhf differs from torch's by an ulp or so.
    for n in (1, 1000, 1 << 20, 16 << 20):
        x = torch.randn(n, generator=g).to(dev)
        y = torch.randn(n, generator=g).to(dev)
        for alpha in (1.0, -2.5):
            got = torchext.scaled_add(x, y, alpha)
            want = torchext.reference_scaled_add(x, y, alpha)
            info["cases"].append(("scaled_add", [n], alpha, got, want, 1e-6, 1e-6))
    for rows, cols in ((1, 1), (64, 768), (4096, 3072), (3, 100003)):
        x = (3 * torch.randn(rows, cols, generator=g)).to(dev)
        b = torch.randn(cols, generator=g).to(dev)
        got = torchext.bias_gelu(x, b)
        want = torchext.reference_bias_gelu(x, b)
        info["cases"].append(("bias_gelu", [rows, cols], None, got, want, 1e-5, 1e-5))
        # The CPU path of the same wheel must agree with the GPU too.
        cpu = torchext.bias_gelu(x.cpu(), b.cpu())
        info["cases"].append(("bias_gelu gpu-vs-cpu", [rows, cols], None, got.cpu(), cpu, 1e-5, 1e-5))
    # square: its kernel is csrc/square.cu (torch include behind #ifndef __CUDACC__), its
    # binding binding/square.cpp (compiled with the precompiled torch/extension.h).
    for n in (1, 1000, 1 << 20):
        x = torch.randn(n, generator=g).to(dev)
        info["cases"].append(("square", [n], None, torchext.square(x), x * x, 0.0, 0.0))
    torch.cuda.synchronize()
    rows = []
    for name, shape, alpha, got, want, rtol, atol in info["cases"]:
        assert got.device == want.device
        err = (got - want).abs().max().item() if got.numel() else 0.0
        close = torch.allclose(got, want, rtol=rtol, atol=atol)
        ok &= close and got.is_cuda == want.is_cuda
        rows.append({"op": name, "shape": shape, "alpha": alpha, "device": str(got.device),
                     "max_abs_err": err, "ok": close})
    # A timing, for the record only: 16M-element scaled_add, kernel vs torch's two ops.
    x = torch.randn(16 << 20, device=dev)
    y = torch.randn(16 << 20, device=dev)
    for f in (torchext.scaled_add, torchext.reference_scaled_add):
        f(x, y, 0.5)
    torch.cuda.synchronize()
    t = {}
    for name, f in (("torchext", torchext.scaled_add), ("torch", torchext.reference_scaled_add)):
        t0 = time.perf_counter()
        for _ in range(50):
            f(x, y, 0.5)
        torch.cuda.synchronize()
        t[name] = (time.perf_counter() - t0) / 50 * 1e6
    info["cases"] = rows
    info["scaled_add_16M_us"] = t
    info["ok"] = bool(ok)
    for k in ("gpu", "capability", "driver", "torch", "torch_cuda", "built_with_torch", "torchext_file"):
        print("%-17s %s" % (k, info[k]))
    for r in rows:
        print("%-22s %-14s alpha=%-5s %-6s max|err|=%.3g %s" % (
            r["op"], "x".join(map(str, r["shape"])), r["alpha"], r["device"], r["max_abs_err"],
            "ok" if r["ok"] else "MISMATCH"))
    print("scaled_add 16M: torchext %.1f us, torch %.1f us" % (t["torchext"], t["torch"]))
    print("check_torch_gpu: %s" % ("OK" if ok else "FAILED"))
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(info, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
