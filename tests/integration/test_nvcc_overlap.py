#!/usr/bin/env python3
"""test_nvcc_overlap.py: `cuwheel internal nvcc-overlap`, the step build.ninja compiles a .cu
through, writes nvcc's own object, byte for byte, and a depfile naming the same headers.

nvcc runs its host front end (cudafe++) and each device front end (cicc) one after the
other; the step runs nvcc's own steps (`nvcc --dryrun`) with the host's chain beside each
architecture's. Each .cu below is compiled by nvcc itself and through the step, with cuwheel's
flags (-objtemp, -frandom-seed, -Xcudafe --orig_src_path_name, -MD -MF), and the objects must
be identical and the depfiles name the same set of files:
- one architecture, the host's and the device's module ids agree (the seed names the unit);
- two architectures under --threads 2 (nvcc 12.x's dry run under --threads fails: the step
  leaves --threads out of its dry run), a kernel in an anonymous namespace and a host
  function that the device pass does not see, without -frandom-seed: the front ends name the
  unit after different functions, so the device passes run again with the host's id;
- a header only the device pass includes reaches the depfile.
CUWHEEL_NVCC_OVERLAP=explain names each step's chain, which shows the steps ran side by
side. Then what runs nvcc whole: CUWHEEL_NVCC_OVERLAP=off, an argument the dry run cannot
quote; a compile error exits non-zero, prints the compiler's file:line once and names the failed
step, and leaves no object and no intermediate behind. Under ccache, tinyraster's kernels
compile through the step on a miss (ccache's prefix command), hit from another build dir, and
its wheels equal those of a build with neither. CUDA 13.0 (/usr/local/cuda-13.0) is
needed (exit 77 without it); CUDA 11.8 and 12.4 provisioned by `cuwheel toolkit install` are
compiled with too where they are installed (each says when it is not)."""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, expect, in_tmp, run, write  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CUDA13 = "/usr/local/cuda-13.0"
SKIP = 77

SEEDED = """#include "both.h"
#ifdef __CUDA_ARCH__
#include "device_only.h"
#endif
__global__ void seeded(float *x) { x[threadIdx.x] *= SCALE; }
extern "C" void launch_seeded(float *x) { seeded<<<1, 32>>>(x); }
"""

TWO_IDS = """#ifndef __CUDA_ARCH__
int host_first(int v) { return v + 1; }
#endif
namespace {
__global__ void in_anon(float *x) { x[threadIdx.x] += 1.0f; }
}
__global__ void named(float *x) { x[threadIdx.x] *= 2.0f; }
void launch_both(float *x) { named<<<1, 32>>>(x); in_anon<<<1, 32>>>(x); }
"""


def toolkits():
    """(version, nvcc, host compiler) of each toolkit to compile with: 13.0, and 11.8 and 12.4
    where `cuwheel toolkit install` put them."""
    found = [("13.0", os.path.join(CUDA13, "bin", "nvcc"), "g++")]
    base = os.path.expanduser("~/.cache/cuwheel/toolkits")
    for version, cxx in (("11.8", "g++-11"), ("12.4", "g++-12")):
        nvccs = sorted(glob.glob(os.path.join(base, version + ".*", "bin", "nvcc")))
        if nvccs and shutil.which(cxx):
            found.append((version, nvccs[-1], cxx))
        else:
            print("note: CUDA %s (or %s) is not installed here: not compiled with" %
                  (version, cxx))
    return found


def deps_of(path):
    """The set of files a depfile names (its target left out)."""
    text = open(path).read().replace("\\\n", " ")
    words = text.split(":", 1)[1].split()
    return set(words)


def compile_both(tmp, nvcc, cxx, src, flags, tag):
    """Compiles src with nvcc and through the step to the same object path (-objtemp names
    the intermediates after it), and checks the step's object and depfile against nvcc's;
    returns (the step's depfile set, the step's output)."""
    odir = os.path.join(tmp, "obj", "".join(c if c.isalnum() else "_" for c in tag))
    os.makedirs(odir, exist_ok=True)
    obj = os.path.join(odir, "k.o")
    argv = [nvcc, "-ccbin", cxx] + flags + ["-MD", "-MF", obj + ".d", "-c", src, "-o", obj]
    rc, out = run(argv, cwd=tmp)
    expect(rc == 0, "%s: nvcc compiles" % tag, out)
    ref = open(obj, "rb").read() if rc == 0 else b""
    ref_deps = deps_of(obj + ".d") if rc == 0 else set()
    for f in (obj, obj + ".d"):
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ, CUWHEEL_NVCC_OVERLAP="explain")
    rc, out = run([CUWHEEL, "internal", "nvcc-overlap", "--"] + argv, cwd=tmp, env=env)
    expect(rc == 0, "%s: the step compiles" % tag, out)
    got = open(obj, "rb").read() if rc == 0 else b""
    got_deps = deps_of(obj + ".d") if rc == 0 else set()
    left = sorted(set(os.listdir(odir)) - {"k.o", "k.o.d"})
    check(not left, "%s: no intermediate is left in the object's dir%s" %
          (tag, "" if not left else ": " + " ".join(left)))
    check(ref and got == ref, "%s: the step's object is nvcc's, byte for byte (%d bytes)" %
          (tag, len(ref)))
    check(ref_deps and got_deps == ref_deps, "%s: the depfile names nvcc's %d files (%s)" %
          (tag, len(ref_deps), " ".join(sorted(got_deps ^ ref_deps))[:400]))
    return got_deps, out


def case_toolkit(tmp, version, nvcc, cxx):
    # nvcc 13 takes -frandom-seed (cuwheel passes it there); the first function names the
    # unit alike for both front ends before it.
    seeded = ["-O3", "-objtemp", "-Xcudafe", "--orig_src_path_name=k/seeded.cu",
              "-Xcompiler=-fPIC", "-I" + tmp, "--generate-code=arch=compute_80,code=sm_80"]
    if version.startswith("13."):
        seeded.insert(2, "-frandom-seed=k/seeded.cu")
    tag = "CUDA %s, one architecture" % version
    got_deps, out = compile_both(tmp, nvcc, cxx, os.path.join(tmp, "k", "seeded.cu"), seeded,
                                 tag)
    check(any(d.endswith("device_only.h") for d in got_deps),
          "%s: the header only the device pass includes is a dependency" % tag)
    expect("cudafe++: chain" in out and "cicc: chain" in out and
           "wrote another module id" not in out,
           "%s: cudafe++ and cicc ran in chains, their module ids agreed" % tag, out)

    two = ["-O2", "-objtemp", "--threads", "2", "-Xcompiler=-fPIC",
           "-gencode=arch=compute_75,code=sm_75", "-gencode=arch=compute_80,code=[sm_80,compute_80]"]
    tag = "CUDA %s, two architectures, two module ids" % version
    _, out = compile_both(tmp, nvcc, cxx, os.path.join(tmp, "k", "two_ids.cu"), two, tag)
    chains = {line.split("chain ")[1].split(",")[0] for line in out.splitlines()
              if ": chain " in line}
    expect(len(chains) == 3, "%s: three chains (the host's and each architecture's)" % tag, out)
    expect("wrote another module id" in out, "%s: a device pass named the unit otherwise and "
           "ran again with the host's module id" % tag, out)


def case_whole(tmp):
    nvcc = os.path.join(CUDA13, "bin", "nvcc")
    src = os.path.join(tmp, "k", "seeded.cu")
    obj = os.path.join(tmp, "whole.o")
    base = [nvcc, "-I" + tmp, "-arch=sm_80", "-objtemp", "-MD", "-MF", obj + ".d", "-c", src,
            "-o", obj]
    env = dict(os.environ, CUWHEEL_NVCC_OVERLAP="off")
    rc, out = run([CUWHEEL, "internal", "nvcc-overlap", "--"] + base, cwd=tmp, env=env)
    expect(rc == 0 and os.path.exists(obj) and "chain" not in out,
           "CUWHEEL_NVCC_OVERLAP=off: nvcc runs whole", out)
    env = dict(os.environ, CUWHEEL_NVCC_OVERLAP="explain")
    odd = base[:1] + ["-DNOTE=$HOME"] + base[1:]
    rc, out = run([CUWHEEL, "internal", "nvcc-overlap", "--"] + odd, cwd=tmp, env=env)
    expect(rc == 0 and "nvcc runs whole: argument 1 holds a character" in out,
           "an argument holding '$' runs nvcc whole, and explain says why", out)

    bad = os.path.join(tmp, "k", "broken.cu")
    write(bad, "__global__ void k(float *x) { x[0] = 1.0f; }\nint host_side( { return 0; }\n")
    odir = os.path.join(tmp, "broken")
    os.makedirs(odir)
    obj = os.path.join(odir, "b.o")
    rc, out = run([CUWHEEL, "internal", "nvcc-overlap", "--", nvcc, "-arch=sm_80", "-objtemp",
                   "-MD", "-MF", obj + ".d", "-c", bad, "-o", obj], cwd=tmp)
    expect(rc != 0, "a compile error exits non-zero", out)
    expect("broken.cu(2)" in out or "broken.cu:2" in out,
           "the compiler's error names the file and line", out)
    expect(out.count("detected in the compilation of") == 1,
           "the error is printed once, by the first step that failed (the host's and the "
           "device's front ends both read it)", out)
    expect("cuwheel: nvcc's step" in out and "failed (exit status" in out,
           "the failed step is named", out)
    check(os.listdir(odir) == [], "no object and no intermediate is left (%s)" %
          " ".join(os.listdir(odir)))


def case_ccache(tmp):
    """Under ccache a miss compiles through the step too (ccache's prefix command), a hit in
    another build dir shows the prefix is not in ccache's key, and the wheels are those of a
    build with neither ccache nor the step."""
    ccache = shutil.which("ccache")
    if not check(ccache is not None, "ccache is installed (tools/install-deps installs it)"):
        return
    src = os.path.join(os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd(), "examples",
                       "tinyraster")
    base = dict(os.environ, CUWHEEL_MATRIX_CUDA="13.0", CUWHEEL_ARCHS="7.5",
                CUWHEEL_MATRIX_PYTHON="3.12", CCACHE_DIR=os.path.join(tmp, "ccache"))
    base.pop("CCACHE_PREFIX", None)
    wheels = {}
    for name, extra in (("miss", {"CUWHEEL_CCACHE": "on"}), ("hit", {"CUWHEEL_CCACHE": "on"}),
                        ("plain", {"CUWHEEL_CCACHE": "off", "CUWHEEL_NVCC_OVERLAP": "off"})):
        proj = os.path.join(tmp, "tr-" + name)
        shutil.copytree(src, proj, ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
        env = dict(base, CCACHE_LOGFILE=os.path.join(tmp, name + ".cclog"), **extra)
        rc, out = run([CUWHEEL, "build", "--no-test", "--progress", "plain"], cwd=proj, env=env)
        expect(rc == 0, "tinyraster (13.0, 7.5, cp312) builds: %s" % name, out)
        dist = os.path.join(proj, "dist")
        wheels[name] = {w: open(os.path.join(dist, w), "rb").read()
                        for w in sorted(os.listdir(dist))} if os.path.isdir(dist) else {}
    log = open(os.path.join(tmp, "miss.cclog")).read() if os.path.exists(
        os.path.join(tmp, "miss.cclog")) else ""
    check("cuwheel-nvcc-overlap " in log and "Result: cache_miss" in log,
          "a ccache miss compiles the .cu through the step (ccache's prefix command)")
    log = open(os.path.join(tmp, "hit.cclog")).read() if os.path.exists(
        os.path.join(tmp, "hit.cclog")) else ""
    check("cache_hit" in log and "cache_miss" not in log,
          "the same compiles in another build dir are ccache hits: the prefix is not in the key")
    check(wheels["miss"] and wheels["miss"] == wheels["hit"] == wheels["plain"],
          "the wheels (%s) are those of a build without ccache and without the step" %
          " ".join(wheels["plain"]))


def body(tmp):
    write(os.path.join(tmp, "both.h"), "#define SCALE 2.0f\n")
    write(os.path.join(tmp, "device_only.h"), "#define DEVICE_ONLY 1\n")
    write(os.path.join(tmp, "k", "seeded.cu"), SEEDED)
    write(os.path.join(tmp, "k", "two_ids.cu"), TWO_IDS)
    for version, nvcc, cxx in toolkits():
        case_toolkit(tmp, version, nvcc, cxx)
    case_whole(tmp)
    case_ccache(tmp)


def main():
    if not os.path.isfile(os.path.join(CUDA13, "bin", "nvcc")):
        print("skip: needs " + CUDA13)
        return SKIP
    return in_tmp("nvcc-overlap", body)


if __name__ == "__main__":
    sys.exit(main())
