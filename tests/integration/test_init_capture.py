"""cuwheel init's capture of setup.py, when setup.py cannot be captured: each bad setup.py below
is stopped with an error naming its cause (and the hint to write the config by hand), exits 1,
and leaves nothing behind: no capture-* dir in the build dir, no file written in the project,
in the real $HOME or beside the project, and no process left running. Then a good setup.py
whose ext_modules depend on a --setup-env switch: captured only with the switch.

The bad ones: it raises; it exits 3; it imports a module that is not installed; it never calls
setup() (a condition); its extension lists no sources (a CMake build); it hangs (--timeout 5);
it prints 100 MB (the 16 MiB cap); it tries the network (a socket connect, urllib to PyPI, and
a child process's connect that only the network namespace stops). Then the CUDA switch:
FORCE_CUDA=1 set by default, overridden by --setup-env, and a capture that finds no CUDA source
in a project with .cu files saying so (and stamping no CUDA label). Last, two extensions of a project
without torch whose kernels need other nvcc flags: each keeps its own (no refusal).

Needs the torch 2.11 venvs (build/torch-pythons, made by examples/torchext/setup-pythons):
the capture runs setup.py with a Python that has torch. Run from the repository root with
$CUWHEEL set (CTest does both)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")

PRELUDE = textwrap.dedent("""\
    import os, sys
    from setuptools import setup, Extension
    open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ran-in-copy"), "w").write("x")
    open(os.path.expanduser("~/cuwheel-init-test-home-marker"), "w").write("x")
    """)

EXT = 'ext_modules=[Extension("demo._c", ["src/c.c"])], packages=["demo"]'

BAD = {
    "raises": (PRELUDE + "raise RuntimeError('cannot find CUTLASS')\nsetup(name='demo', %s)\n" % EXT,
               ["setup.py:5: error: setup.py failed: RuntimeError: cannot find CUTLASS"], []),
    "exits": (PRELUDE + "sys.exit(3)\n", ["setup.py exited with sys.exit(3) before setup()"], []),
    "missing-module": (PRELUDE + "import pybind11_not_here\nsetup(name='demo', %s)\n" % EXT,
                       ["setup.py:5: error: setup.py needs the module 'pybind11_not_here'"], []),
    "no-setup-call": (PRELUDE + "if os.environ.get('NEVER'):\n    setup(name='demo', %s)\n" % EXT,
                      ["ran to its end without calling setup()"], []),
    "cmake": (PRELUDE + textwrap.dedent("""\
        from setuptools.command.build_ext import build_ext
        class CMakeExtension(Extension):
            def __init__(self, name):
                super().__init__(name, sources=[])
        class CMakeBuild(build_ext):
            pass
        setup(name='demo', packages=['demo'], ext_modules=[CMakeExtension('demo._c')],
              cmdclass={'build_ext': CMakeBuild})
        """), ["extension 'demo._c' lists no sources", "CMakeBuild", "CMake"], []),
    "hangs": (PRELUDE + "import time\ntime.sleep(3600)\nsetup(name='demo', %s)\n" % EXT,
              ["the capture stopped setup.py: it ran past the time limit (5 s)"], ["--timeout", "5"]),
    "floods": (PRELUDE + "s = 'y' * 1023 + '\\n'\nfor _ in range(100 * 1024):\n    sys.stdout.write(s)\n"
               "setup(name='demo', %s)\n" % EXT,
               ["the capture stopped setup.py: it printed more than 16 MiB"], []),
    "network-socket": (PRELUDE + "import socket\nsocket.create_connection(('pypi.org', 443), 5)\n"
                       "setup(name='demo', %s)\n" % EXT,
                       ["setup.py:6: error: setup.py tried the network (create_connection"], []),
    "network-urllib": (PRELUDE + "import urllib.request\n"
                       "urllib.request.urlopen('https://pypi.org/simple/torch/', timeout=5)\n"
                       "setup(name='demo', %s)\n" % EXT,
                       ["setup.py tried the network"], []),
}


def make_project(tmp, name, setup_py):
    proj = os.path.join(tmp, name)
    os.makedirs(os.path.join(proj, "src"))
    os.makedirs(os.path.join(proj, "demo"))
    open(os.path.join(proj, "demo", "__init__.py"), "w").close()
    with open(os.path.join(proj, "src", "c.c"), "w") as f:
        f.write("#include <Python.h>\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, \"_c\"};\n"
                "PyMODINIT_FUNC PyInit__c(void) { return PyModule_Create(&m); }\n")
    with open(os.path.join(proj, "setup.py"), "w") as f:
        f.write(setup_py)
    return proj


def tree(path):
    out = set()
    for d, dirs, files in os.walk(path):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(d, n), path))
    return out


def main():
    if not os.path.exists(os.path.join(VENV, "python")):
        skip("no torch venv at build/torch-pythons/py3.12 (examples/torchext/setup-pythons)")
    home_marker = os.path.expanduser("~/cuwheel-init-test-home-marker")
    if os.path.exists(home_marker):
        os.unlink(home_marker)
    tmp = tempfile.mkdtemp(prefix="cuwheel-init-capture-")
    env = dict(os.environ, PATH=VENV + os.pathsep + os.environ.get("PATH", ""))
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    try:
        for name, (setup_py, want, extra) in BAD.items():
            proj = make_project(tmp, name, setup_py)
            before = tree(proj)
            t0 = time.monotonic()
            rc, out = run([CUWHEEL, "init", "-o", os.path.join(tmp, name + ".toml")] + extra,
                          cwd=proj, env=env)
            took = time.monotonic() - t0
            build = os.path.join(proj, "build", "cuwheel")
            print(out.strip()[-1500:])
            check(rc == 1, "%s: cuwheel init exits 1 (%d, %.1f s)" % (name, rc, took))
            for w in want:
                check(w in out, "%s: the error says %r" % (name, w))
            check("hint: describe the build as [tool.cuwheel] by hand" in out,
                  "%s: the hint says to write the config by hand" % name)
            check(not os.path.exists(os.path.join(tmp, name + ".toml")),
                  "%s: no config written" % name)
            left = [n for n in (os.listdir(build) if os.path.isdir(build) else [])
                    if n.startswith("capture-")]
            check(not left, "%s: no capture dir left in the build dir (%s)" % (name, left))
            new = {p for p in tree(proj) - before if not p.startswith("build")}
            check(not new, "%s: nothing written in the project itself (%s)" % (name, sorted(new)))
            check(not os.path.exists(home_marker),
                  "%s: setup.py's write to ~ went to the capture's own HOME" % name)
            check(set(os.listdir(tmp)) - {n for n in BAD} == set(),
                  "%s: nothing written beside the project" % name)
        # The hang: killed with its process group, not left behind.
        ps = subprocess.run(["ps", "-eo", "args"], stdout=subprocess.PIPE, text=True).stdout
        check("time.sleep(3600)" not in ps and os.path.join(tmp, "hangs") not in ps,
              "no setup.py process is left running")

        # A child process's connect: below Python's socket layer, only the namespace stops it.
        proj = make_project(tmp, "network-child", PRELUDE + textwrap.dedent("""\
            import subprocess
            r = subprocess.run([sys.executable, "-S", "-c",
                                "import socket; socket.create_connection(('1.1.1.1', 80), 5)"])
            if r.returncode == 0:
                raise SystemExit("the child reached the network")
            setup(name='demo', %s)
            """ % EXT))
        have_ns = subprocess.run(["unshare", "-rn", "true"]).returncode == 0 \
            if shutil.which("unshare") else False
        rc, out = run([CUWHEEL, "init", "-o", os.path.join(tmp, "child.toml")], cwd=proj, env=env)
        print(out.strip()[-800:])
        if have_ns:
            check(rc == 0, "network-child: the child's connect failed inside the capture's "
                  "network namespace, so setup.py went on (exit %d)" % rc)
        else:
            print("note: unshare -rn does not work here: the child test shows only the proxy "
                  "variables' effect")
        for p in ("network-child.toml", "child.toml"):
            if os.path.exists(os.path.join(tmp, p)):
                os.unlink(os.path.join(tmp, p))

        # A switch: ext_modules only with FORCE_CUDA=1, which the capture sets unless told.
        proj = make_project(tmp, "switch", textwrap.dedent("""\
            import os
            from setuptools import setup, Extension
            ext = [Extension("demo._c", ["src/c.c"])] if os.environ.get("FORCE_CUDA") == "1" else []
            setup(name="demo", version="1.0", packages=["demo"], ext_modules=ext)
            """))
        rc, out = run([CUWHEEL, "init", "-o", "-"], cwd=proj, env=dict(env, FORCE_CUDA="0"))
        check(rc == 0 and 'module = "demo._c"' in out and 'kind = "capi"' in out
              and "FORCE_CUDA=1" in out,
              "switch: with no --setup-env, setup.py runs with FORCE_CUDA=1 as release builds "
              "do (the caller's FORCE_CUDA=0 does not reach it), and the config says so")
        rc, out = run([CUWHEEL, "init", "-o", "-", "--setup-env", "FORCE_CUDA=0"], cwd=proj,
                      env=env)
        check(rc == 1 and "lists no extension module" in out and "--setup-env" in out,
              "switch: --setup-env FORCE_CUDA=0 overrides the default: no extension, and the "
              "error names --setup-env")

        # A PyG-style switch: the CUDA extension only when CUDA is forced; without it the
        # capture says it found .cu files and the switch, and no CUDA label is stamped.
        proj = make_project(tmp, "cudaswitch", textwrap.dedent("""\
            import os
            from setuptools import setup, Extension
            WITH_CUDA = os.getenv("FORCE_CUDA", "0") == "1"
            ext = [Extension("demo._c", ["src/c.c"])]
            if WITH_CUDA:
                ext.append(Extension("demo._cuda", ["src/cuda.c", "src/k.cu"]))
            setup(name="demo", version="1.0", packages=["demo"], ext_modules=ext)
            """))
        with open(os.path.join(proj, "src", "k.cu"), "w") as f:
            f.write("__global__ void k(float *x) { x[0] = 1; }\n")
        shutil.copy(os.path.join(proj, "src", "c.c"), os.path.join(proj, "src", "cuda.c"))
        rc, out = run([CUWHEEL, "init", "-o", "-"], cwd=proj, env=env)
        check(rc == 0 and 'module = "demo._cuda"' in out and '"src/k.cu"' in out
              and "declared no CUDA source" not in out and "local-version" not in out,
              "cudaswitch: by default the CUDA extension is captured, with no warning")
        rc, out = run([CUWHEEL, "init", "-o", "-", "--setup-env", "FORCE_CUDA=0"], cwd=proj,
                      env=env)
        print(out)
        check(rc == 0 and "setup.py:7: warning: setup.py declared no CUDA source, though the "
              "project holds .cu files (src/k.cu) and setup.py names FORCE_CUDA" in out
              and "hint: set the switch setup.py reads" in out,
              "cudaswitch: with FORCE_CUDA=0 the capture says what it found and how to switch")
        check('local-version = ""' in out and 'module = "demo._cuda"' not in out,
              "cudaswitch: the CPU-only config stamps no CUDA label")
        # The project's own switches: [tool.cuwheel] setup-env alone still has the build read
        # from setup.py, with its variables (FORCE_CUDA = "0" turns the default off);
        # --setup-env overrides an entry.
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write('[tool.cuwheel]\nsetup-env = { FORCE_CUDA = "0", MAX_JOBS = "3" }\n')
        rc, out = run([CUWHEEL, "init", "-o", "-"], cwd=proj, env=env)
        check(rc == 0 and "declared no CUDA source" in out and 'module = "demo._cuda"' not in out
              and "and FORCE_CUDA=0 MAX_JOBS=3, in a copy" in out,
              "setup-env: the project's FORCE_CUDA=0 and MAX_JOBS=3 reach setup.py, said in the "
              "config's first lines")
        rc, out = run([CUWHEEL, "init", "-o", "-", "--setup-env", "FORCE_CUDA=1"], cwd=proj,
                      env=env)
        check(rc == 0 and 'module = "demo._cuda"' in out
              and "and FORCE_CUDA=1 MAX_JOBS=3, in a copy" in out and "FORCE_CUDA=0" not in out,
              "setup-env: --setup-env FORCE_CUDA=1 overrides the project's entry")
        rc, out = run([CUWHEEL, "plan"], cwd=proj, env=env)
        check(rc == 0 and "the build is read from setup.py" in out and "declared no CUDA" in out,
              "setup-env: plan with no build in [tool.cuwheel] captures with setup-env")

        # Two extensions of a project without torch compile their kernels with other nvcc
        # flags: each keeps its kernel among its own sources, _d with its own nvcc-flags, and
        # plan compiles each .cu once per toolkit, shared by the Pythons (no refusal).
        proj = make_project(tmp, "grouping", textwrap.dedent("""\
            from setuptools import setup, Extension
            setup(name="demo", version="1.0", packages=["demo"], ext_modules=[
                Extension("demo._c", ["src/c.c", "src/ka.cu"], extra_compile_args={"nvcc": ["-O2"]}),
                Extension("demo._d", ["src/d.c", "src/kb.cu"], extra_compile_args={"nvcc": ["-O1"]}),
            ])
            """))
        for n in ("ka", "kb"):
            with open(os.path.join(proj, "src", n + ".cu"), "w") as f:
                f.write("__global__ void %s(float *x) { x[0] = 1; }\n" % n)
        with open(os.path.join(proj, "src", "d.c"), "w") as f:
            f.write(open(os.path.join(proj, "src", "c.c")).read().replace("_c", "_d"))
        rc, out = run([CUWHEEL, "init", "-o", "-"], cwd=proj, env=env)
        d_table = out.split('module = "demo._d"')[-1].split("\n[")[0]
        check(rc == 0 and "one kernel archive per toolkit" not in out
              and 'sources = ["src/d.c", "src/kb.cu"]' in d_table
              and 'nvcc-flags = ["-O1"]' in d_table and "sources = []" in out,
              "grouping: init keeps each extension's kernel among its sources, _d's with its "
              "own nvcc-flags")
        rc, out = run([CUWHEEL, "plan"], cwd=proj, env=env)
        print(out)
        check(rc == 0 and re.search(r"src/kb\.cu +shared: once per \(toolkit, flags\)", out)
              and re.search(r"src/d\.c +per Python", out),
              "grouping: plan compiles each .cu once per toolkit, the bindings per Python")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.exists(home_marker):
            os.unlink(home_marker)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
