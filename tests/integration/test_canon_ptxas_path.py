#!/usr/bin/env python3
"""test_canon_ptxas_path.py: `cuwheel internal canon` gives ptxas fixed source times also when
ptxas does not lie beside nvcc, as in a distribution's toolkit.

Debian's nvidia-cuda-toolkit (CUDA 11.8, 12.4) has its nvcc in /usr/lib/nvidia-cuda-toolkit/bin
(reached through /usr/bin/nvcc, a script) and ptxas, cudafe++, fatbinary in /usr/bin, found on
the PATH its nvcc.profile makes. ptxas records each source's modification time in device line
info; the canon step binds a shim over ptxas that gives each PTX `.file` a fixed time. It found
ptxas only beside nvcc's real path, so with such a layout the sources' times reached the object.

The same layout, made of CUDA 13.0's own programs (no Debian package is installed on a shared
machine): <tmp>/tk/lib/nvidia-cuda-toolkit/bin holds a copy of nvcc and an nvcc.profile whose
PATH names <tmp>/tk/usr/bin, which holds links to ptxas, cudafe++, fatbinary and nvlink (the
profile names CUDA 13.0's headers and nvvm), and <tmp>/tk/usr/bin/nvcc is a script that runs
that nvcc. A -lineinfo .cu is compiled through `cuwheel internal canon` twice, its file dated
2001 and then 2011; the two objects must be byte-identical and name
/cuwheel/project/k.cu. Compiled the same way without the canon step the two differ (the times
reach the object: the check above can fail). Needs CUDA 13.0 and bubblewrap that can make a
mount namespace; exits 77 (skipped) without them.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, in_tmp, run, write  # noqa: E402

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CUDA = "/usr/local/cuda-13.0"
SKIP = 77


def layout(tk):
    """A Debian-shaped toolkit of CUDA 13.0's programs; returns its two nvccs (the real one in
    lib/nvidia-cuda-toolkit/bin, the script in usr/bin)."""
    lib = os.path.join(tk, "lib", "nvidia-cuda-toolkit", "bin")
    usr = os.path.join(tk, "usr", "bin")
    os.makedirs(lib)
    os.makedirs(usr)
    shutil.copy2(os.path.join(CUDA, "bin", "nvcc"), os.path.join(lib, "nvcc"))
    shutil.copytree(os.path.join(CUDA, "bin", "crt"), os.path.join(lib, "crt"))
    write(os.path.join(lib, "nvcc.profile"), f"""
TOP              = {CUDA}
CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(CICC_PATH):{usr}:
INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/$(_TARGET_DIR_)/include/cccl" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib64"
""")
    for tool in ("ptxas", "cudafe++", "fatbinary", "nvlink", "bin2c"):
        os.symlink(os.path.join(CUDA, "bin", tool), os.path.join(usr, tool))
    write(os.path.join(usr, "nvcc"), '#!/bin/sh\nexec %s/nvcc "$@"\n' % lib)
    os.chmod(os.path.join(usr, "nvcc"), 0o755)
    return os.path.join(lib, "nvcc"), os.path.join(usr, "nvcc")


def body(tmp):
    real, script = layout(os.path.join(tmp, "tk"))
    proj, bdir = os.path.join(tmp, "proj"), os.path.join(tmp, "build")
    os.makedirs(bdir)
    src = os.path.join(proj, "k.cu")
    write(src, "__global__ void canon_kernel(float *x) {\n"
               "  x[threadIdx.x] = 2.0f * x[threadIdx.x];\n}\n")
    # No ptxas beside the real nvcc, and none of CUDA 13.0's own dirs on the PATH: the one
    # nvcc runs is the link in usr/bin.
    path = os.path.join(tmp, "tk", "usr", "bin") + ":/usr/bin:/bin"
    env = dict(os.environ, PATH=path)
    env.pop("CCACHE_BASEDIR", None)
    bwrap = shutil.which("bwrap")
    # As cuwheel compiles (toolchain_nvcc_args): no process id reaches the object.
    flags = ["-lineinfo", "-arch=sm_90", "-objtemp", "-frandom-seed=k.cu", "-Xcudafe",
             "--orig_src_path_name=k.cu", "-c"]

    def compile_at(stamp, canon, nvcc):
        """The object of src dated stamp (always k.o: -objtemp names temporaries after it)."""
        out = "k.o"
        os.utime(src, (stamp, stamp))
        if canon:
            argv = [CUWHEEL, "internal", "canon", "--bwrap", bwrap, "--project", proj,
                    "--build-dir", bdir, "--nvcc", nvcc, "--", nvcc] + flags + \
                   ["/cuwheel/project/k.cu", "-o", out]
        else:
            argv = [nvcc] + flags + [src, "-o", out]
        rc, text = run(argv, env=env, cwd=bdir)
        check(rc == 0, "%s with %s, source dated %d, exits 0%s"
              % ("canon" if canon else "plain nvcc", nvcc, stamp, "" if rc == 0 else
                 ":\n" + text[-2000:]))
        path = os.path.join(bdir, out)
        return open(path, "rb").read() if rc == 0 and os.path.exists(path) else b""

    for nvcc in (real, script):
        a = compile_at(978307200, True, nvcc)
        b = compile_at(1293840000, True, nvcc)
        check(a and a == b, "through canon with %s: the objects of the source dated 2001 and "
              "2011 are byte-identical (%d and %d bytes)" % (nvcc, len(a), len(b)))
        check(b"/cuwheel/project/k.cu" in a, "the object names /cuwheel/project/k.cu")
    a = compile_at(978307200, False, real)
    b = compile_at(1293840000, False, real)
    check(a and b and a != b, "without canon the two objects differ: ptxas records the source's "
          "time (so the check above can fail)")


def main():
    if not os.path.isfile(os.path.join(CUDA, "bin", "nvcc")):
        print("skip: needs " + CUDA)
        return SKIP
    bwrap = shutil.which("bwrap")
    if not bwrap or subprocess.run([bwrap, "--dev-bind", "/", "/", "true"]).returncode != 0:
        print("skip: needs bubblewrap that can make a mount namespace here")
        return SKIP
    return in_tmp("canon-ptxas", body)


if __name__ == "__main__":
    sys.exit(main())
