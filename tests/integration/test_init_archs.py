#!/usr/bin/env python3
"""Arch flags hard-coded in setup.py become the kernels' archs, not nvcc flags.

A torch project whose CUDAExtension passes `extra_compile_args["nvcc"]` with three -gencode
targets (separate value, `=` form, a PTX-only `code=compute_90`), `--threads 4` and
`-lineinfo`: `cuwheel init -o -` must write `archs = "8.0 8.6 9.0+PTX"`, keep -lineinfo and -O3
in `nvcc-flags` and leave out every -gencode and `--threads 4` (cuwheel passes its own: a second
one makes nvcc warn on every kernel), say so in the value's comment, and print a note naming
the flags that became archs. Then `CUWHEEL_ARCHS=7.5 cuwheel init` still writes setup.py's
archs into the config (the override applies at plan and build time, as the note says).

Needs the torch 2.11 venv build/torch-pythons/py3.12 (setup.py imports torch), first on PATH;
exits 77 without it. Run from the repository root:

    cd build/ci && ctest -R test_init_archs --output-on-failure
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures, write  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")
SKIP = 77

SETUP = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="archdemo", version="0.1", packages=["archdemo"],
      ext_modules=[CUDAExtension("archdemo._C", ["src/b.cpp", "src/k.cu"],
          extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--threads", "4",
              "-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_86,code=sm_86",
              "-gencode", "arch=compute_90,code=compute_90", "-lineinfo"]})],
      cmdclass={"build_ext": BuildExtension})
"""


def main():
    if not os.path.exists(os.path.join(VENV, "python")):
        print("skip: no torch venv at build/torch-pythons/py3.12 "
              "(examples/torchext/setup-pythons)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="cuwheel-init-archs-")
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    env["PATH"] = os.pathsep.join([VENV, env.get("PATH", "")])
    try:
        proj = os.path.join(tmp, "archdemo")
        write(os.path.join(proj, "setup.py"), SETUP)
        write(os.path.join(proj, "archdemo", "__init__.py"), "")
        write(os.path.join(proj, "src", "b.cpp"),
              "#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n")
        write(os.path.join(proj, "src", "k.cu"), "__global__ void k(float *x) { x[0] = 1; }\n")
        for extra in ({}, {"CUWHEEL_ARCHS": "7.5"}):
            rc, out = run([CUWHEEL, "-C", proj, "init", "-o", "-"], env=dict(env, **extra))
            tag = " (CUWHEEL_ARCHS=7.5)" if extra else ""
            if not check(rc == 0, "init exits 0%s" % tag):
                print(out[-3000:])
                continue
            lines = out.splitlines()
            archs = [line for line in lines if line.startswith("archs = ")]
            nvcc = [line for line in lines if line.startswith("nvcc-flags = ")]
            check(archs and archs[0].startswith('archs = "8.0 8.6 9.0+PTX"'),
                  "the -gencode targets became archs = \"8.0 8.6 9.0+PTX\"%s: %s" % (tag, archs))
            check(nvcc and nvcc[0].startswith('nvcc-flags = ["-O3", "-lineinfo"]')
                  and "(less --threads 4 -gencode arch=compute_80,code=sm_80 " in nvcc[0],
                  "nvcc-flags keep -O3 and -lineinfo, and say -gencode and --threads 4 are "
                  "left out%s: %s" % (tag, nvcc))
            check("note: setup.py's nvcc arch flags" in out and 'became archs = "8.0 8.6 '
                  '9.0+PTX"' in out, "init notes the arch flags it turned into archs%s" % tag)
    finally:
        if failures:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
