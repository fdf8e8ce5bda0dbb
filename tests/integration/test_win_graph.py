#!/usr/bin/env python3
"""test_win_graph.py: the Windows build graph written on Linux, and its packing.

1. Golden files (tests/golden/win/*.ninja): `cuwheel build --stage win-graph --export DIR`
   for tinyraster (its pyproject: an abi3 cell and, with abi3-per-python, a cp312 one), a
   capi variant of it (kind = "capi" in a copy of the project) and examples/torchext (kind
   torch). Every command line is compared; `--update` rewrites the golden files instead.
2. The export is self-contained: DIR/probe.py (run here with stand-ins for cl/link/lib, a
   CUDA root holding version.json and a real CPython) writes DIR/paths.ninja, after which
   ninja parses DIR/build.ninja, every $variable it uses is defined, and `ninja -n` plans
   every step; the sources are in DIR/src and the packages staged in DIR/stage/<cell>.
3. `--stage win-pack --import DIR`, after mingw-built stand-ins for the .pyd the runner
   would link are placed in DIR/stage/<cell>/: win_amd64 wheels in dist/ that pass the audit;
   a .pyd importing cudart64_13.dll fails its cell (nothing placed) with the DLL load error;
   a missing .pyd fails its cell; a library loaded by path (loaded-by = "path") is linked
   without /EXPORT:PyInit_ and its .pyd, which defines none, is packed and placed; a module or
   a file the project does not declare, found at the root of a cell's stage, fails that cell
   (the audit's declared names, as the Linux audit step's --declare). (Part 3 is skipped
   without mingw-w64.)
4. Kernels an extension lists itself (tests/init/plainops with the config init writes, a capi
   _cpu/_cuda pair, _cuda with nvcc-flags of its own): golden plainops.ninja; scale.cu is
   compiled by nvcc per cell with _cuda's nvcc flags (the kernels table's without them), the
   arch and MSVC's host flags, and linked only into _cuda; probe.py and ninja -n as in 2.
5. A project naming its own C++ standard (nvcc-flags, host-flags, cflags): each nvcc and cl
   edge of a C++ source carries it alone, not cuwheel's C++17 as well; -O2 alone likewise.
Exit 77 when ninja is missing."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
GOLDEN = os.path.join(ROOT, "tests", "golden", "win")
TINYRASTER = os.path.join(ROOT, "examples", "tinyraster")
UPDATE = "--update" in sys.argv
FAILS = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        FAILS.append(f"{name}: {detail}")
    return cond


def run(cmd, env=None, cwd=None):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("CUWHEEL_MATRIX_"):
            del e[k]
    e.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=cwd)


def find_python(v):
    """A CPython v (pyenv's, else python3.X on PATH), or None."""
    c = sorted(p for p in glob.glob(os.path.expanduser(f"~/.pyenv/versions/{v}.*/bin/python3"))
               if not p.split("/")[-3].endswith("t"))
    return c[-1] if c else shutil.which(f"python{v}")


def capi_copy(work):
    """tinyraster with kind = "capi": a copy of what the graph reads."""
    proj = os.path.join(work, "tinyraster-capi")
    os.makedirs(proj)
    for d in ("kernels", "bindings", "python"):
        shutil.copytree(os.path.join(ROOT, "examples", "tinyraster", d), os.path.join(proj, d),
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(ROOT, "examples", "tinyraster", "LICENSE"), proj)
    with open(os.path.join(ROOT, "examples", "tinyraster", "pyproject.toml")) as f:
        text = f.read()
    if 'kind = "abi3"' not in text:
        sys.exit("FAIL: pyproject.toml no longer says kind = \"abi3\"")
    text = text.replace('kind = "abi3"', 'kind = "capi"').replace(
        "abi3-per-python = true", "abi3-per-python = false")
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write(text)
    return proj


def export(name, proj, env, out):
    r = run([CUWHEEL, "-C", proj, "build", "--stage", "win-graph", "--export", out], env)
    if not check(f"{name}: win-graph export", r.returncode == 0, r.stdout + r.stderr):
        return None
    with open(os.path.join(out, "build.ninja")) as f:
        text = f.read()
    gold = os.path.join(GOLDEN, name + ".ninja")
    if UPDATE:
        with open(gold, "w") as f:
            f.write(text)
        print(f"updated {gold}")
    else:
        want = open(gold).read() if os.path.exists(gold) else ""
        if not check(f"{name}: build.ninja equals {os.path.relpath(gold, ROOT)}", text == want,
                     "differs (run tests/integration/test_win_graph.py --update and review "
                     "the diff)"):
            import difflib
            print("".join(list(difflib.unified_diff(want.splitlines(True),
                                                    text.splitlines(True), gold, "new"))[:60]))
    return text


def probe_and_plan(name, out, pythons, work):
    """Runs probe.py with stand-in tools, then ninja -n on the export."""
    fake = os.path.join(work, "fake-" + name)
    os.makedirs(os.path.join(fake, "bin"))
    os.makedirs(os.path.join(fake, "cuda", "bin"))
    for t in ("cl", "link.exe", "lib.exe"):
        p = os.path.join(fake, "bin", t)
        open(p, "w").close()
        os.chmod(p, 0o755)
    open(os.path.join(fake, "cuda", "bin", "nvcc.exe"), "w").close()
    with open(os.path.join(fake, "cuda", "version.json"), "w") as f:
        json.dump({"cuda": {"version": "13.0.88"}}, f)
    env = {"PATH": os.path.join(fake, "bin") + os.pathsep + os.environ["PATH"],
           "CUDA_PATH": os.path.join(fake, "cuda")}
    env.update(pythons)
    r = run([sys.executable, os.path.join(out, "probe.py")], env)
    if not check(f"{name}: probe.py writes paths.ninja", r.returncode == 0, r.stdout + r.stderr):
        return
    paths = open(os.path.join(out, "paths.ninja")).read()
    defined = set(re.findall(r"^(\w+) =", paths, re.M))
    text = open(os.path.join(out, "build.ninja")).read()
    defined |= set(re.findall(r"^  (\w+) =", text, re.M)) | {"in", "out"}
    used = set(re.findall(r"\$(\w+)", text.replace("$$", "")))
    check(f"{name}: every $variable of build.ninja is defined", used <= defined,
          sorted(used - defined))
    r = run(["ninja", "-C", out, "-n"])
    check(f"{name}: ninja -n plans every step", r.returncode == 0 and "link stage/" in r.stdout,
          r.stdout[-500:] + r.stderr)
    r = run(["ninja", "-C", out, "-t", "commands", "all"])
    cmds = r.stdout.splitlines()
    check(f"{name}: commands use the probed paths", cmds and all(
        fake in c for c in cmds if c.split()[0].endswith(("cl", "link.exe", "nvcc.exe"))),
        cmds[:3])


PLAINOPS_CONFIG = """
[project]
name = "plainops"
version = "0.1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = "find"

[tool.cuwheel.kernels]
sources = []
nvcc-flags = ["-O2"]
archs = "7.5"

[[tool.cuwheel.extension]]
module = "plainops._cpu"
kind = "capi"
sources = ["csrc/cpu_module.c", "csrc/variant.cpp"]
include-dirs = ["csrc"]
defines = ["PLAINOPS_CPU"]
cflags = ["-O2"]

[[tool.cuwheel.extension]]
module = "plainops._cuda"
kind = "capi"
sources = ["csrc/cuda_module.c", "csrc/variant.cpp", "csrc/scale.cu"]
include-dirs = ["csrc"]
defines = ["WITH_CUDA"]
cflags = ["-O2"]
nvcc-flags = ["-O1", "--expt-relaxed-constexpr"]

[tool.cuwheel.matrix]
python = ["3.12", "3.13"]
cuda = ["13.0"]
"""


def ninja_edges(text):
    """{output: (rule, explicit inputs, the edge's variable lines)} of a build.ninja's text."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("build "):
            head, _, rest = line[6:].partition(": ")
            rule, _, ins = rest.partition(" ")
            cur = head
            out[cur] = (rule, ins.split(" | ")[0].split(), "")
        elif cur and line.startswith("  "):
            r, i, v = out[cur]
            out[cur] = (r, i, v + line + "\n")
        else:
            cur = None
    return out


def plain_kernels(work, env):
    """tests/init/plainops with the config `cuwheel init` writes for it (a _cpu/_cuda pair of
    capi extensions that list their kernels among their sources), _cuda with nvcc-flags of its
    own: golden plainops.ninja, scale.cu compiled by nvcc per cell with _cuda's nvcc flags
    (else, without them, the kernels table's), the archs and MSVC's host flags, linked only
    into _cuda; variant.cpp by cl once per extension and cell; no kernel archive."""
    proj = os.path.join(work, "plainops")
    shutil.copytree(os.path.join(ROOT, "tests", "init", "plainops"), proj)
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write(PLAINOPS_CONFIG)
    env = dict(env, CUWHEEL_MATRIX_PYTHON="3.12 3.13")
    first = os.path.join(work, "plainops-export")
    text = export("plainops", proj, env, first)
    if text is None or UPDATE:
        return
    py = {v: find_python(v) for v in ("3.12", "3.13")}
    if py["3.12"] and py["3.13"]:
        probe_and_plan("plainops", first, {"CUWHEEL_PYTHON_3_12": py["3.12"],
                                           "CUWHEEL_PYTHON_3_13": py["3.13"]}, work)
    es = ninja_edges(text)
    cells = ("cp312-cu130-win_amd64", "cp313-cu130-win_amd64")
    scale = sorted(o for o, (r, ins, _) in es.items() if "src/csrc/scale.cu" in ins)
    want = [f"obj/{c}/plainops._cuda/csrc/scale.cu.obj" for c in cells]
    check("plainops: scale.cu compiled once per cell, under _cuda", scale == want, scale)
    for o in scale:
        rule, _, v = es[o]
        flags = v.split("flags = ", 1)[-1].split()
        check(f"plainops: {o} by nvcc with _cuda's own nvcc flags, its define, the arch and "
              "MSVC's host flags",
              rule == "nvcc_cell" and "--expt-relaxed-constexpr" in flags and
              "-O1" in flags and "-O2" not in flags and "-O3" not in flags and "-DWITH_CUDA" in flags and
              "-DPLAINOPS_CPU" not in flags and "-Xcompiler=/MD" in flags and
              "--use-local-env" in flags and "-std=c++17" in flags and "-Isrc/csrc" in flags
              and any("sm_75" in f for f in flags), v)
    variant = sorted(o for o, (r, ins, _) in es.items() if "src/csrc/variant.cpp" in ins)
    check("plainops: variant.cpp by cl for each extension and cell",
          len(variant) == 4 and all(es[o][0] == "cl" for o in variant), variant)
    links = {o: ins for o, (r, ins, _) in es.items() if r == "link"}
    check("plainops: four modules linked", len(links) == 4, sorted(links))
    for mod, ins in links.items():
        own = "plainops._cpu" if "/_cpu." in mod else "plainops._cuda"
        check(f"plainops: {mod} links only its own objects, scale.cu only into _cuda",
              all(f"/{own}/" in i for i in ins) and
              (own == "plainops._cuda") == any(i.endswith("/scale.cu.obj") for i in ins), ins)
    check("plainops: no kernel archive (the kernels table lists no source)",
          "kernels/" not in text and "/WHOLEARCHIVE" not in text)
    # Without nvcc-flags of its own, the .cu takes the kernels table's (whose -O2 replaces
    # cuwheel's -O3, as on Linux).
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write(PLAINOPS_CONFIG.replace('nvcc-flags = ["-O1", "--expt-relaxed-constexpr"]\n', ""))
    out = os.path.join(work, "plainops-export-2")
    r = run([CUWHEEL, "-C", proj, "build", "--stage", "win-graph", "--export", out], env)
    if check("plainops without its own nvcc-flags: export", r.returncode == 0, r.stderr):
        es = ninja_edges(open(os.path.join(out, "build.ninja")).read())
        _, _, v = es[want[0]]
        flags = v.split("flags = ", 1)[-1].split()
        check("plainops without its own nvcc-flags: scale.cu takes the kernels' -O2 (no -O3)",
              "-O2" in flags and "-O3" not in flags and "--expt-relaxed-constexpr" not in flags,
              v)


def one_std(flags, prefix):
    """The C++ standards flags name (-std=..., /std:...), in order."""
    return [f for f in flags if f.startswith(prefix)]


def own_standard(work, env):
    """A project that names its own C++ standard (C++20) in the kernels' nvcc-flags and
    host-flags and in an extension's cflags: each nvcc and cl edge of a C++ source carries that
    standard alone, never cuwheel's C++17 as well (nvcc takes the last -std and warns
    "incompatible redefinition for option 'std'", cl.exe the last /std: with warning D9025);
    the kernels' -O2 stands alone too (no -O3). Without them, cuwheel's C++17 and -O3, once."""
    proj = os.path.join(work, "ownstd")
    shutil.copytree(os.path.join(ROOT, "tests", "init", "plainops"), proj)
    config = PLAINOPS_CONFIG.replace(
        'sources = []\nnvcc-flags = ["-O2"]',
        'sources = ["csrc/scale.cu", "csrc/variant.cpp"]\n'
        'nvcc-flags = ["-std=c++20", "-O2"]\nhost-flags = ["-std=c++20"]').replace(
        'cflags = ["-O2"]\n\n[[tool.cuwheel.extension]]', 'cflags = ["-O2", "-std=c++20"]\n\n'
        '[[tool.cuwheel.extension]]').replace(
        '"csrc/variant.cpp", "csrc/scale.cu"]', '"csrc/variant.cpp"]').replace(
        'nvcc-flags = ["-O1", "--expt-relaxed-constexpr"]\n', "")
    if config.count("c++20") != 3:
        sys.exit("FAIL: PLAINOPS_CONFIG no longer has the lines own_standard edits")
    cell = "cp312-cu130-win_amd64"
    want = {"kernels/cu130/obj/csrc/scale.cu.obj": ("-std=", ["-std=c++20"]),
            "kernels/cu130/obj/csrc/variant.cpp.obj": ("/std:", ["/std:c++20"]),
            f"obj/{cell}/plainops._cpu/csrc/variant.cpp.obj": ("/std:", ["/std:c++20"]),
            f"obj/{cell}/plainops._cuda/csrc/variant.cpp.obj": ("/std:", ["/std:c++17"])}
    for named in (True, False):
        label = "own standard" if named else "no standard named"
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(config if named else config.replace('"-std=c++20"', '"-DX"'))
        out = os.path.join(work, f"ownstd-export-{named}")
        r = run([CUWHEEL, "-C", proj, "build", "--stage", "win-graph", "--export", out], env)
        if not check(f"{label}: export", r.returncode == 0, r.stdout + r.stderr):
            continue
        es = ninja_edges(open(os.path.join(out, "build.ninja")).read())
        for obj, (prefix, stds) in want.items():
            if not check(f"{label}: {obj} is built", obj in es, sorted(es)):
                continue
            flags = es[obj][2].split("flags = ", 1)[-1].split()
            if not named:
                stds = [prefix + "c++17"]
            check(f"{label}: {obj} names {' '.join(stds)} alone", one_std(flags, prefix) == stds
                  and not any(f.startswith(("-Xcompiler=-std", "-Xcompiler=/std")) and
                              f != "-Xcompiler=/std:c++20" for f in flags), flags)
        flags = es["kernels/cu130/obj/csrc/scale.cu.obj"][2].split("flags = ", 1)[-1].split()
        check(f"{label}: the kernels' .cu takes their -O2 alone (no -O3)",
              "-O2" in flags and "-O3" not in flags, flags)


def win_pack(work, out):
    """Part 3: stand-in .pyd files, then --stage win-pack."""
    cc = "x86_64-w64-mingw32-gcc"
    if not shutil.which(cc):
        print("skip win-pack: no mingw-w64")
        return False
    fake = os.path.join(work, "pyfake")
    os.makedirs(fake)
    dlls = {}
    for dll, fn in (("python3.dll", "PyModule_Create2"), ("python312.dll", "PyModule_Create2"),
                    ("cudart64_13.dll", "cudaGetDeviceCount")):
        src = os.path.join(fake, dll + ".c")
        open(src, "w").write(f"__declspec(dllexport) void *{fn}(void *a, int b) {{ return a; }}\n")
        dlls[dll] = os.path.join(fake, dll)
        subprocess.run([cc, "-shared", "-s", "-o", dlls[dll], src], check=True)

    def pyd(path, pydll, cudart=False):
        src = path + ".c"
        body = "__declspec(dllimport) void *PyModule_Create2(void *d, int v);\n"
        if cudart:
            body += "__declspec(dllimport) void *cudaGetDeviceCount(void *a, int b);\n"
        body += ("__declspec(dllexport) void *PyInit__C(void) { static char m[104]; return "
                 + ("cudaGetDeviceCount(m, 0), " if cudart else "")
                 + "PyModule_Create2(m, 1013); }\n")
        open(src, "w").write(body)
        link = [dlls[pydll]] + ([dlls["cudart64_13.dll"]] if cudart else [])
        subprocess.run([cc, "-shared", "-s", "-o", path, src, *link], check=True)
        os.remove(src)

    stage = os.path.join(out, "stage")
    pyd(os.path.join(stage, "cp310-abi3-cu130-win_amd64", "tinyraster", "_C.pyd"), "python3.dll")
    env = {"CUWHEEL_MATRIX_PLATFORM": "win_amd64", "CUWHEEL_MATRIX_CUDA": "13.0",
           "CUWHEEL_MATRIX_PYTHON": "3.12", "CUWHEEL_BUILD_DIR": os.path.join(work, "b"),
           "CUWHEEL_DIST_DIR": os.path.join(work, "dist")}
    # cp312's .pyd is missing: that cell fails, the abi3 one is placed.
    r = run([CUWHEEL, "build", "--stage", "win-pack", "--import", out], env, cwd=TINYRASTER)
    whls = sorted(os.path.basename(p) for p in glob.glob(os.path.join(work, "dist", "*.whl")))
    check("win-pack: a missing .pyd fails its cell (exit 1, named)", r.returncode == 1 and
          "cp312-cu130-win_amd64" in r.stderr and "_C.cp312-win_amd64.pyd is missing"
          in r.stderr, r.stdout + r.stderr)
    check("win-pack: the abi3 cell's wheel is in dist/", whls ==
          ["tinyraster-0.1.0+cu130-cp310-abi3-win_amd64.whl"], whls)
    # cp312's .pyd imports cudart64_13.dll: the audit fails it with the user's error.
    pyd(os.path.join(stage, "cp312-cu130-win_amd64", "tinyraster", "_C.cp312-win_amd64.pyd"),
        "python312.dll", cudart=True)
    r = run([CUWHEEL, "build", "--stage", "win-pack", "--import", out], env, cwd=TINYRASTER)
    check("win-pack: cudart64_13.dll fails the audit with the DLL load error",
          r.returncode == 1 and "cudart64_13.dll" in r.stderr and
          "DLL load failed while importing _C" in r.stderr, r.stdout + r.stderr)
    whls = sorted(os.path.basename(p) for p in glob.glob(os.path.join(work, "dist", "*.whl")))
    check("win-pack: nothing placed for the failed cell", len(whls) == 1, whls)
    pyd(os.path.join(stage, "cp312-cu130-win_amd64", "tinyraster", "_C.cp312-win_amd64.pyd"),
        "python312.dll")
    r = run([CUWHEEL, "build", "--stage", "win-pack", "--import", out], env, cwd=TINYRASTER)
    whls = sorted(os.path.basename(p) for p in glob.glob(os.path.join(work, "dist", "*.whl")))
    check("win-pack: both win_amd64 wheels placed", r.returncode == 0 and whls == [
        "tinyraster-0.1.0+cu130-cp310-abi3-win_amd64.whl",
        "tinyraster-0.1.0+cu130-cp312-cp312-win_amd64.whl"], r.stdout + r.stderr)
    for w in glob.glob(os.path.join(work, "dist", "*.whl")):
        a = run([CUWHEEL, "audit", "--json", w])
        res = json.loads(a.stdout)[0] if a.stdout.startswith("[") else {}
        check(f"win-pack: {os.path.basename(w)} audits win_amd64 with the packages",
              a.returncode == 0 and res.get("platform_tag") == "win_amd64" and
              any(e["member"] == "tinyraster/__init__.py" for e in [
                  {"member": m} for m in subprocess.run(
                      ["unzip", "-Z1", w], capture_output=True, text=True).stdout.split()]),
              a.stdout[-400:])
    # What the runner's artifact brought beside the packages (a module, a file at the stage's
    # root): the audit refuses it, as the Linux audit step told --declare does, and dist/ keeps
    # the cell's wheel it held (the abi3 cell's is packed and placed again).
    placed = os.path.join(work, "dist", "tinyraster-0.1.0+cu130-cp312-cp312-win_amd64.whl")
    held = open(placed, "rb").read()
    for stray, what in (("stray.py", "the module or package 'stray'"),
                        ("notes.txt", "the file 'notes.txt'")):
        path = os.path.join(stage, "cp312-cu130-win_amd64", stray)
        open(path, "w").write("x = 1\n")
        r = run([CUWHEEL, "build", "--stage", "win-pack", "--import", out], env, cwd=TINYRASTER)
        now = open(placed, "rb").read() if os.path.exists(placed) else None
        check(f"win-pack: {stray} in the stage fails its cell (undeclared), dist/ unchanged",
              r.returncode == 1 and f"puts {what} at the top of site-packages, which the "
              "project does not declare" in r.stdout + r.stderr and
              "audit failed: tinyraster-0.1.0+cu130-cp312-cp312-win_amd64.whl" in r.stderr
              and now == held, r.stdout + r.stderr)
        os.remove(path)
    return True


def win_pack_library(work):
    """A library its package loads by path on Windows (loaded-by = "path", kind capi): its link
    exports no PyInit_ (as setuptools' Library), and win-pack places its wheel though the .pyd
    defines none, the audit and retag's gate told of it as the Linux audit step is."""
    cc = "x86_64-w64-mingw32-gcc"
    if not shutil.which(cc):
        print("skip win-pack of a library: no mingw-w64")
        return
    proj = capi_copy(os.path.join(work, "lib"))
    path = os.path.join(proj, "pyproject.toml")
    text = open(path).read().replace('module = "tinyraster._C"',
                                     'module = "tinyraster._C"\nloaded-by = "path"', 1)
    open(path, "w").write(text)
    out = os.path.join(work, "lib-export")
    env = {"CUWHEEL_MATRIX_PLATFORM": "win_amd64", "CUWHEEL_MATRIX_CUDA": "13.0",
           "CUWHEEL_MATRIX_PYTHON": "3.12", "CUWHEEL_BUILD_DIR": os.path.join(work, "lib-b"),
           "CUWHEEL_DIST_DIR": os.path.join(work, "lib-dist")}
    r = run([CUWHEEL, "-C", proj, "build", "--stage", "win-graph", "--export", out], env)
    if not check("loaded-by = \"path\": win-graph export", r.returncode == 0, r.stderr):
        return
    ninja = open(os.path.join(out, "build.ninja")).read()
    check("loaded-by = \"path\": the link exports no PyInit_",
          "/IMPLIB:obj/cp312-cu130-win_amd64/tinyraster._C.lib" in ninja and
          "/EXPORT:PyInit" not in ninja, ninja[-2000:])
    pyd = os.path.join(out, "stage", "cp312-cu130-win_amd64", "tinyraster",
                       "_C.cp312-win_amd64.pyd")
    src = os.path.join(work, "lib.c")
    open(src, "w").write("__declspec(dllexport) int scale(int x) { return 2 * x; }\n")
    subprocess.run([cc, "-shared", "-s", "-o", pyd, src], check=True)
    r = run([CUWHEEL, "-C", proj, "build", "--stage", "win-pack", "--import", out], env)
    wheel = os.path.join(work, "lib-dist", "tinyraster-0.1.0+cu130-cp312-cp312-win_amd64.whl")
    check("loaded-by = \"path\": win-pack places the wheel of a .pyd without PyInit_",
          r.returncode == 0 and os.path.exists(wheel), r.stdout + r.stderr)
    if not os.path.exists(wheel):
        return
    a = run([CUWHEEL, "audit", wheel])
    check("loaded-by = \"path\": audit without --library refuses it, naming the fix",
          a.returncode == 1 and "exports no PyInit__C" in a.stdout and
          "--library tinyraster._C" in a.stdout, a.stdout)
    a = run([CUWHEEL, "audit", wheel, "--library", "tinyraster._C"])
    check("loaded-by = \"path\": audit --library tinyraster._C passes it", a.returncode == 0,
          a.stdout)


def main():
    if not shutil.which("ninja"):
        print("SKIP: ninja not found")
        return 77
    work = tempfile.mkdtemp(prefix="cuwheel-wingraph-")
    try:
        env = {"CUWHEEL_MATRIX_PLATFORM": "win_amd64", "CUWHEEL_MATRIX_CUDA": "13.0",
               "CUWHEEL_MATRIX_PYTHON": "3.12"}
        tr = os.path.join(work, "tinyraster")
        export("tinyraster", TINYRASTER, env, tr)
        capi = os.path.join(work, "capi")
        export("tinyraster-capi", capi_copy(work), dict(env, CUWHEEL_MATRIX_PYTHON="3.12 3.13"),
               capi)
        te = os.path.join(work, "torchext")
        export("torchext", os.path.join(ROOT, "examples", "torchext"),
               # The example's torch 2.11 x CUDA 13.0 cells (3.12, 3.13): its torch 2.6 cells
               # pair with CUDA 12.4 by what the Linux torch 2.6 reports (PyPI's Windows torch
               # 2.6 is a CPU build), so they are left out of the Windows graph.
               {"CUWHEEL_MATRIX_PLATFORM": "win_amd64", "CUWHEEL_MATRIX_CUDA": "13.0",
                "CUWHEEL_MATRIX_TORCH": "2.11", "CUWHEEL_MATRIX_PYTHON": "3.12,3.13"}, te)
        plain_kernels(work, env)
        if not UPDATE:
            own_standard(work, env)
        if UPDATE:
            return 0
        for f in ("src/kernels/rasterize.cu", "src/kernels/tinyraster.h",
                  "src/bindings/tinyraster.c", "probe.py",
                  "stage/cp310-abi3-cu130-win_amd64/tinyraster/__init__.py",
                  "stage/cp312-cu130-win_amd64/tinyraster/__init__.py"):
            check(f"tinyraster export holds {f}", os.path.isfile(os.path.join(tr, f)))
        check("torchext export holds its binding and kernels", all(os.path.isfile(
            os.path.join(te, "src", f)) for f in ("binding/ops.cpp", "csrc/gelu.h", "csrc/ops.cu")),
            os.listdir(os.path.join(te, "src")))
        py = {v: find_python(v) for v in ("3.12", "3.13")}
        if py["3.12"]:
            probe_and_plan("tinyraster", tr, {"CUWHEEL_PYTHON_3_12": py["3.12"]}, work)
        if py["3.12"] and py["3.13"]:
            probe_and_plan("tinyraster-capi", capi, {"CUWHEEL_PYTHON_3_12": py["3.12"],
                                                      "CUWHEEL_PYTHON_3_13": py["3.13"]}, work)
        else:
            print(f"skip probe runs: CPython 3.12 and 3.13 wanted, found {py}")
        # An include dir of "." and the export inside the project: the copy of the project
        # into DIR/src/ leaves out the export itself, the build and the dist dirs.
        dot = os.path.join(work, "dotproj")
        shutil.copytree(os.path.join(work, "tinyraster-capi"), dot)
        t = open(os.path.join(dot, "pyproject.toml")).read()
        t = t.replace('module = "tinyraster._C"', 'module = "tinyraster._C"\ninclude-dirs = ["."]', 1)
        t = t.replace('include-dirs = ["kernels"]\ncflags', 'cflags')
        open(os.path.join(dot, "pyproject.toml"), "w").write(t)
        os.makedirs(os.path.join(dot, "build", "junk"))
        inner = os.path.join(dot, "wingraph")
        for attempt in (1, 2):
            r = run([CUWHEEL, "-C", dot, "build", "--stage", "win-graph", "--export", inner],
                    dict(env, CUWHEEL_BUILD_DIR=os.path.join(dot, "build")))
            src = os.path.join(inner, "src")
            check(f"include-dirs = [\".\"], export inside the project (run {attempt})",
                  r.returncode == 0 and os.path.isfile(os.path.join(src, "pyproject.toml")) and
                  not os.path.exists(os.path.join(src, "wingraph")) and
                  not os.path.exists(os.path.join(src, "build")) and
                  '"/I."' not in r.stdout, r.stdout + r.stderr)
        # A directory that is not an export is never replaced.
        keep = os.path.join(work, "keep")
        os.makedirs(keep)
        open(os.path.join(keep, "mine.txt"), "w").write("x")
        r = run([CUWHEEL, "build", "--stage", "win-graph", "--export", keep], env, cwd=TINYRASTER)
        check("win-graph refuses to replace a directory it did not write", r.returncode == 1
              and os.path.exists(os.path.join(keep, "mine.txt")) and "not replaced" in r.stderr,
              r.stderr)
        # Re-export over a previous export: replaced whole (paths.ninja from the probe gone).
        r = run([CUWHEEL, "build", "--stage", "win-graph", "--export", tr], env, cwd=TINYRASTER)
        check("win-graph replaces its previous export", r.returncode == 0 and
              not os.path.exists(os.path.join(tr, "paths.ninja")), r.stderr)
        r = run([CUWHEEL, "build", "--stage", "win-graph"], env, cwd=TINYRASTER)
        check("--stage win-graph without --export is a usage error", r.returncode == 2,
              r.stderr)
        r = run([CUWHEEL, "build", "--stage", "win-graph", "--export", os.path.join(work, "x")],
                {"CUWHEEL_MATRIX_PLATFORM": "linux_x86_64"}, cwd=TINYRASTER)
        check("win-graph with no win_amd64 cell exits 3", r.returncode == 3, r.stderr)
        win_pack(work, tr)
        win_pack_library(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print("FAILED:\n  " + "\n  ".join(FAILS))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
