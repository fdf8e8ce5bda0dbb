#!/usr/bin/env python3
"""test_torch_flag_order.py: kind torch compiles with BuildExtension's flag order (issue 27, 4.).

A fixture project whose kernel includes a torch header (so the kernels take torch's flags) and
whose binding includes torch/extension.h, with -U flags among its nvcc-flags
(-U__CUDA_NO_HALF_OPERATORS__, -U__CUDA_NO_HALF2_OPERATORS__, as causal-conv1d has) and its
cflags (-UTORCH_API_INCLUDE_EXTENSION_H, which torch's own -D, appended later, overrides), a
define and a non-macro flag of each kind, is given
  - to `cuwheel build --dry-run` (its build.ninja), and
  - to torch's own BuildExtension (setup.py build_ext with CUDAExtension on the same sources,
    flags and define; ninja's run is left out, the build.ninja torch writes is read).
For the kernel's nvcc command and the binding's c++ command, the flags both commands hold that
can act on one another (-D/-U, -std=, --expt-relaxed-constexpr and the project's own flags) must
come in the same order, and the include dirs (resolved) must come in the same order; cuwheel's
additions (-O3, -fvisibility, prefix maps, arch flags...) and torch's warnings and -g are not
compared. In both, the project's -U__CUDA_NO_HALF_OPERATORS__ follows torch's -D (so it undoes
it). Needs build/torch-pythons/py3.12 and CUDA 13.0; exits 77 (skipped) without them.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
PY = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin", "python")
NVCC_FLAGS = ["-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF2_OPERATORS__", "--use_fast_math"]
CXX_FLAGS = ["-UTORCH_API_INCLUDE_EXTENSION_H", "-DFLAGORDER_LEVEL=2", "-fno-math-errno"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def project(d):
    write(os.path.join(d, "pkg", "flagorder", "__init__.py"), "")
    write(os.path.join(d, "csrc", "k.cu"),
          "#include <c10/macros/Macros.h>\n"
          "__global__ void fo_kernel(float *x) { x[threadIdx.x] *= 2.0f; }\n"
          'extern "C" void fo_launch(float *x) { fo_kernel<<<1, 32>>>(x); }\n')
    write(os.path.join(d, "binding", "b.cpp"),
          "#include <torch/extension.h>\n"
          'extern "C" void fo_launch(float *x);\n'
          "at::Tensor twice(const at::Tensor &x) { return x * 2; }\n"
          'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice", &twice); }\n')
    q = lambda v: "[" + ", ".join('"%s"' % f for f in v) + "]"  # noqa: E731
    write(os.path.join(d, "pyproject.toml"), f"""
[project]
name = "flagorder"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["pkg/flagorder"]

[tool.cuwheel.kernels]
sources = ["csrc/k.cu"]
include-dirs = ["csrc"]
defines = ["FLAGORDER=1"]
archs = "9.0"
nvcc-flags = {q(NVCC_FLAGS)}

[tool.cuwheel.extension]
module = "flagorder._C"
kind = "torch"
sources = ["binding/b.cpp"]
include-dirs = ["csrc"]
defines = ["FLAGORDER=1"]
cflags = {q(CXX_FLAGS)}

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.cache]
ccache = "off"

[tool.cuwheel.pythons]
"3.12" = "{PY}"
""")
    write(os.path.join(d, "setup.py"), f"""
import os
import setuptools
from torch.utils import cpp_extension as ce

# Write build.ninja, run nothing (no compile, no link): the flags are what is compared.
ce._run_ninja_build = lambda *a, **k: None
from setuptools._distutils import ccompiler
ccompiler.CCompiler.spawn = lambda self, cmd, **kw: None
here = os.path.dirname(os.path.abspath(__file__))
setuptools.setup(
    name="flagorder",
    packages=[],
    ext_modules=[ce.CUDAExtension(
        "flagorder._C", ["csrc/k.cu", "binding/b.cpp"],
        include_dirs=[os.path.join(here, "csrc")],
        define_macros=[("FLAGORDER", "1")],
        extra_compile_args={{"cxx": {CXX_FLAGS!r}, "nvcc": {NVCC_FLAGS!r}}})],
    cmdclass={{"build_ext": ce.BuildExtension}},
    script_args=["build_ext", "--build-temp", "tmp", "--build-lib", "lib"],
)
""")


def ninja_vars_and_edges(text):
    """Top-level variables and {output: {var: value}} of a build.ninja (no escapes here)."""
    tops, edges, cur = {}, {}, None
    for line in text.splitlines():
        if line.startswith("build "):
            out = line[6:].split(": ", 1)[0].split(" | ")[0].strip()
            cur = edges.setdefault(out, {"rule": line.split(": ", 1)[1].split()[0]})
        elif line.startswith("  ") and cur is not None and " = " in line:
            k, v = line.strip().split(" = ", 1)
            cur[k] = v
        else:
            cur = None
            m = re.match(r"^(\w+) = (.*)$", line)
            if m:
                tops[m.group(1)] = m.group(2)
    return tops, edges


def views(args, cwd, ours):
    """(the flags that act on one another, in order; the include dirs, in order)."""
    acting, incs = [], []
    it = iter(args)
    for a in it:
        if a in ("-I", "-isystem"):
            a += next(it)
        if a.startswith("-isystem") or a.startswith("-I"):
            d = a[8:] if a.startswith("-isystem") else a[2:]
            incs.append(os.path.realpath(os.path.join(cwd, d)))
        elif re.match(r"-[DU]|-std=|--expt-relaxed-constexpr$", a) or a in ours:
            acting.append(a)
    return acting, incs


def common_order(x, y):
    """x and y, each reduced to the flags both hold (first occurrences)."""
    both = set(x) & set(y)
    seen_x, seen_y = [], []
    for v, out in ((x, seen_x), (y, seen_y)):
        for f in v:
            if f in both and f not in out:
                out.append(f)
    return seen_x, seen_y


def compare(what, ours, theirs, ours_cwd, theirs_cwd, own):
    oa, oi = views(ours, ours_cwd, own)
    ta, ti = views(theirs, theirs_cwd, own)
    cx, cy = common_order(oa, ta)
    print("%s cuwheel:        %s" % (what, " ".join(cx)))
    print("%s BuildExtension: %s" % (what, " ".join(cy)))
    check(cx == cy and len(cx) >= 4,
          "%s: the %d flags both commands hold that act on one another come in one order"
          % (what, len(cx)))
    check(all(f in oa for f in own), "%s: cuwheel passes every project flag (%s)" % (what, own))
    # Include dirs: the ones both name, in the same order (setuptools adds <venv>/include,
    # an empty dir, and the Python dir as -I where cuwheel passes -isystem).
    ci, ct = common_order(oi, ti)
    check(ci == ct and len(ci) >= 2, "%s: the %d include dirs both name come in one order%s"
          % (what, len(ci), "" if ci == ct else ": %s vs %s" % (ci, ct)))
    return oa


def two_names(tmp, d):
    """Two torch extensions with other module names link one kernel archive: its kernel is
    compiled without TORCH_EXTENSION_NAME (each extension's own sources keep theirs), and a
    kernel that names the macro is refused at its use, with the way to compile it per
    extension."""
    text = open(os.path.join(d, "pyproject.toml")).read()
    write(os.path.join(d, "binding", "d.cpp"), open(os.path.join(d, "binding", "b.cpp")).read())
    two = text.replace("[tool.cuwheel.extension]", "[[tool.cuwheel.extension]]").replace(
        "[tool.cuwheel.matrix]", '[[tool.cuwheel.extension]]\nmodule = "flagorder._D"\n'
        'kind = "torch"\nsources = ["binding/d.cpp"]\n[tool.cuwheel.matrix]')
    write(os.path.join(d, "pyproject.toml"), two)
    build = os.path.join(tmp, "build2")
    env = dict(os.environ, CUWHEEL_BUILD_DIR=build, CUWHEEL_DIST_DIR=os.path.join(tmp, "dist2"))
    p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                       capture_output=True, text=True, env=env)
    if not check(p.returncode == 0, "two names: cuwheel build --dry-run exits 0"):
        print(p.stdout[-3000:], p.stderr[-3000:])
        return
    # The kernel's scan with torch's flags runs beside the bindings': one step (two sources
    # of one Python each ask no PCH question, since no .gch could pay), never a step more.
    steps = [l for l in p.stderr.splitlines() if "source scan, step" in l]
    check(len(steps) == 1, "two names: the torch scans take 1 step: %s" % steps)
    _, ours = ninja_vars_and_edges(open(os.path.join(build, "build.ninja")).read())
    nv = [e for o, e in ours.items() if e["rule"] == "nvcc" and o.startswith("kernels/")]
    check(len(nv) == 1 and "TORCH_EXTENSION_NAME" not in nv[0]["flags"]
          and "-DTORCH_API_INCLUDE_EXTENSION_H" in nv[0]["flags"],
          "two names: the shared kernel has torch's flags but no TORCH_EXTENSION_NAME")
    own = {o: e["flags"] for o, e in ours.items() if o.endswith((".cpp.o",))}
    check(any("-DTORCH_EXTENSION_NAME=_C" in f for o, f in own.items() if "b.cpp" in o)
          and any("-DTORCH_EXTENSION_NAME=_D" in f for o, f in own.items() if "d.cpp" in o),
          "two names: each extension's own source keeps its own TORCH_EXTENSION_NAME")
    k = os.path.join(d, "csrc", "k.cu")
    write(k, open(k).read() + "\n// registers under the module's name\n"
          "static const char *fo_name = C10_STRINGIZE(TORCH_EXTENSION_NAME);\n")
    p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                       capture_output=True, text=True, env=env)
    print(p.stderr[-1500:])
    check(p.returncode == 1 and "csrc/k.cu:6:44: error: kernel source uses TORCH_EXTENSION_NAME"
          in p.stderr and "flagorder._C, flagorder._D" in p.stderr
          and "hint: list csrc/k.cu among the sources of the extension" in p.stderr,
          "two names: a kernel that names TORCH_EXTENSION_NAME is refused at its use")


def python_kernel(tmp):
    """A kernel whose first include is torch/extension.h: its scan stops at Python.h (no
    Python include dir for kernels), so only the proof's scan through the stand-ins shows its
    torch headers; the kernels must still be compiled against torch (its include dirs and
    defines beside the stand-ins), or nvcc fails on torch/all.h. A second dry run answers
    every scan from build/scan, that failed -M too."""
    d = os.path.join(tmp, "pyk")
    project(d)
    write(os.path.join(d, "csrc", "k.cu"),
          "#include <torch/extension.h>\n"
          "__global__ void fo_kernel(float *x) { x[threadIdx.x] *= 2.0f; }\n"
          'extern "C" void fo_launch(float *x) { fo_kernel<<<1, 32>>>(x); }\n')
    build = os.path.join(tmp, "build3")
    env = dict(os.environ, CUWHEEL_BUILD_DIR=build, CUWHEEL_DIST_DIR=os.path.join(tmp, "dist3"))
    p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test", "-j", "2"],
                       capture_output=True, text=True, env=env)
    if not check(p.returncode == 0, "python kernel: cuwheel build --dry-run exits 0"):
        print(p.stdout[-3000:], p.stderr[-3000:])
        return
    # Its -M stops at Python.h after torch's headers (-H names them): the kernels use torch
    # from that step on, and its scan with torch's flags ran beside it: two steps, not four.
    steps = [l for l in p.stderr.splitlines() if "source scan, step" in l]
    check(len(steps) == 2, "python kernel: the torch scans take 2 steps: %s" % steps)
    _, ours = ninja_vars_and_edges(open(os.path.join(build, "build.ninja")).read())
    nv = [e for o, e in ours.items() if e["rule"] == "nvcc" and o.startswith("kernels/")]
    flags = nv[0]["flags"] if len(nv) == 1 else ""
    check("pyfree/include" in flags and re.search(r"-I\S*torch/\S*include", flags)
          and "-DTORCH_API_INCLUDE_EXTENSION_H" in flags,
          "python kernel: proven Python-free, compiled with the stand-ins and torch's include "
          "dirs and defines (%s)" % flags[-300:])
    # Its -M failed on Python.h: that answer is cached too, so a warm plan runs nothing.
    p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                       capture_output=True, text=True, env=env)
    runs = [l for l in p.stderr.splitlines() if "source scan" in l]
    check(p.returncode == 0 and not runs,
          "python kernel: a second build --dry-run runs no preprocessor (the kernel's -M that "
          "stopped at Python.h is answered from build/scan): %s" % runs)


def main():
    if not os.access(PY, os.X_OK) or not os.path.isdir("/usr/local/cuda-13.0"):
        print("skip: needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons) and "
              "/usr/local/cuda-13.0")
        return 77
    tmp = tempfile.mkdtemp(prefix="cuwheel-flagorder-")
    try:
        d = os.path.join(tmp, "proj")
        project(d)
        build = os.path.join(tmp, "build")
        env = dict(os.environ, CUWHEEL_BUILD_DIR=build, CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"))
        p = subprocess.run([CUWHEEL, "-C", d, "build", "--dry-run", "--no-test"],
                           capture_output=True, text=True, env=env)
        if not check(p.returncode == 0, "cuwheel build --dry-run exits 0"):
            print(p.stdout[-3000:], p.stderr[-3000:])
            return 1
        _, ours = ninja_vars_and_edges(open(os.path.join(build, "build.ninja")).read())
        nv = [e for e in ours.values() if e["rule"] == "nvcc"]
        cc = [e for o, e in ours.items() if e["rule"] in ("cc", "cc_pch") and
              o.endswith("binding/b.cpp.o")]
        check(len(nv) == 1 and "-DTORCH_EXTENSION_NAME=_C" in nv[0]["flags"],
              "the kernel includes a torch header: its nvcc command has torch's flags")
        check(len(cc) == 1, "one binding compile in cuwheel's build.ninja")

        cuda_home = "/usr/local/cuda-13.0"
        tenv = dict(os.environ, CUDA_HOME=cuda_home, TORCH_CUDA_ARCH_LIST="9.0", MAX_JOBS="1")
        p = subprocess.run([PY, "setup.py"], cwd=d, env=tenv, capture_output=True, text=True)
        tnin = os.path.join(d, "tmp", "build.ninja")
        if not check(p.returncode == 0 and os.path.exists(tnin),
                     "torch's BuildExtension wrote its build.ninja"):
            print(p.stdout[-3000:], p.stderr[-3000:])
            return 1
        tops, _ = ninja_vars_and_edges(open(tnin).read())
        t_cu = shlex.split(tops.get("cuda_cflags", "")) + shlex.split(
            tops.get("cuda_post_cflags", ""))
        t_cxx = shlex.split(tops.get("cflags", "")) + shlex.split(tops.get("post_cflags", ""))
        if nv:
            oa = compare("kernel nvcc", shlex.split(nv[0]["flags"]), t_cu, build, d, NVCC_FLAGS)
            check(oa.index("-U__CUDA_NO_HALF_OPERATORS__") > oa.index(
                "-D__CUDA_NO_HALF_OPERATORS__") and oa.index("--use_fast_math") < oa.index(
                "-DTORCH_EXTENSION_NAME=_C"),
                "kernel nvcc: the project's -U__CUDA_NO_HALF_OPERATORS__ follows torch's -D, "
                "its flags come before the defines torch appends")
        if cc:
            flags = shlex.split(cc[0]["flags"])
            if "-include" in flags:  # the PCH's -include and its two flags are cuwheel's
                flags = flags[flags.index("-include") + 2:]
            oa = compare("binding c++", flags, t_cxx, build, d, CXX_FLAGS)
            check(oa.index("-UTORCH_API_INCLUDE_EXTENSION_H") < oa.index(
                "-DTORCH_API_INCLUDE_EXTENSION_H"),
                "binding c++: the project's cflags come before the defines torch appends")
        two_names(tmp, d)
        python_kernel(tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s" % tmp)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
