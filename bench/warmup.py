"""bench/warmup.py: reads, untimed, the files every build of a torch project reads (torch's
~5,700 headers and libraries, the toolkit's compilers), so that whichever build a benchmark
times first does not pay for reading them from disk on a machine just booted: a cold build, not
a cold page cache. Used by bench/firstwheel/run and bench/torchbind/run (their --no-warm leaves
it out)."""
import os
import subprocess

INCLUDES = ("import sysconfig, torch, torch.utils.cpp_extension as c\n"
            "print(' '.join(['-I' + d for d in c.include_paths()] +"
            " ['-I' + sysconfig.get_paths()['include']]))")


def warm(pythons, cuda_home, work):
    """Each Python's torch imported (cpp_extension too) and torch/extension.h preprocessed by
    c++ and nvcc with its include dirs, then a one-line kernel compiled (nvcc's front ends and
    ptxas). Returns {"rc": the worst exit status, "errors": [what failed]}."""
    os.makedirs(work, exist_ok=True)
    nvcc = os.path.join(cuda_home, "bin", "nvcc")
    src = os.path.join(work, "warm.cu")
    kern = os.path.join(work, "warm-kernel.cu")
    with open(src, "w") as f:
        f.write("#include <torch/extension.h>\n")
    with open(kern, "w") as f:
        f.write("__global__ void k(float *x) { x[0] = 1.0f; }\n")
    cmds, errors, rc = [], [], 0
    for py in pythons:
        p = subprocess.run([py, "-c", INCLUDES], capture_output=True, text=True)
        if p.returncode != 0:
            rc = max(rc, p.returncode)
            errors.append("%s: torch does not import: %s" % (py, p.stderr.strip()[-300:]))
            continue
        inc = p.stdout.split()
        cmds += [["c++", "-std=c++17", "-x", "c++"] + inc + ["-E", src, "-o", os.devnull],
                 [nvcc, "-std=c++17"] + inc + ["-E", src, "-o", os.devnull]]
    cmds.append([nvcc, "-arch=sm_90", "-c", kern, "-o", kern + ".o"])
    for cmd in cmds:
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            rc = max(rc, p.returncode)
            errors.append("%s: %s" % (" ".join(cmd[:2]), p.stderr.strip()[-300:]))
    return {"rc": rc, "errors": errors}
