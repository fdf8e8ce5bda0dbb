"""The torch extension kind end to end, on examples/torchext:

1. examples/torchext/setup-pythons makes the torch 2.11 venvs for Python 3.12 and 3.13 (torch
   from PyPI without its CUDA runtime packages; pip cache under build/);
2. `cuwheel build` of a copy of the example with `pch = "on"` (the example leaves it at auto,
   which builds no .gch for two Pythons) makes a wheel for both cells (cp312-pt211-cu130, cp313-pt211-cu130), the
   ninja log shows ops.cu compiled once for both (and square.cu, whose torch include is behind
   #ifndef __CUDACC__, without torch flags), binding/square.cpp and binding/scale.cu (they
   include torch/extension.h but use no Python: proven Python-free) compiled once for both
   cells with the stand-ins first (ninja's compile of each is the proof's), binding/ops.cpp (PYBIND11_MODULE) per cell with one
   precompiled torch/all.h (it holds no Python header: one .gch for 3.12 and 3.13), the
   METADATA declares torch>=2.11,<2.12;
2a. the build recorded those two compiles as the proof's answers: `cuwheel plan` and the
   build again after it compile nothing (no object kept, ninja: no work to do); with the
   recorded answers removed (as a build by an earlier cuwheel left them), `cuwheel plan` runs
   those two compiles itself and keeps the objects, and the build again copies them:
   byte-identical wheels;
2b. binding/ops.cpp compiled again without the PCH gives identical .text/.rodata sections,
   and gcc -H shows the cp313 compile loading the shared .gch (a "! ...gch" line);
3. `cuwheel audit` passes and names torch as the provider of libc10/libtorch*/libcudart;
4. each wheel, installed next to its torch, computes what the pure-torch reference computes
   (the example's pytest, on the CPU here);
5. torch's own BuildExtension (setup.py build_ext, CUDAExtension, ninja) on the same sources,
   with the compile and link commands captured: the ABI-relevant flags (-D TORCH_* PYBIND11_*
   _GLIBCXX_USE_CXX11_ABI, -std, include dirs as a set, libraries and library dirs) and the
   optimisation and code-affecting flags (-O3 -DNDEBUG -fno-strict-overflow -fPIC) are the
   same as those in cuwheel's build.ninja for the cp312 cell.

Needs a CUDA 13 toolkit here (cuwheel doctor finds it) and network access to PyPI the first
time (about 1.5 GB per Python; later runs reuse build/torch-pythons and build/pip-cache).
Run from the repository root with $CUWHEEL set (CTest does both)."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402

ROOT = os.getcwd()
EXAMPLE = os.path.join(ROOT, "examples", "torchext")
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
PYTHONS = {v: os.path.join(ROOT, "build", "torch-pythons", "py" + v, "bin", "python")
           for v in ("3.12", "3.13")}
PROJ = None  # the example's copy the builds run in (step_copy)
CELLS = {"3.12": "cp312-pt211-cu130-linux_x86_64", "3.13": "cp313-pt211-cu130-linux_x86_64"}


def ninja_edges(text):
    """build.ninja -> {output: {"rule": r, "inputs": [...], vars...}} (no escapes needed here)."""
    edges, cur = {}, None
    for line in text.splitlines():
        if line.startswith("build "):
            outs, rest = line[6:].split(": ", 1)
            parts = rest.split(" | ")[0].split()
            implicit = rest.split(" | ")[1].split() if " | " in rest else []
            cur = {"rule": parts[0], "inputs": parts[1:], "implicit": implicit}
            edges[outs.split(" | ")[0].strip()] = cur
        elif line.startswith("  ") and cur is not None and " = " in line:
            k, v = line.strip().split(" = ", 1)
            cur[k] = v
        else:
            cur = None
    return edges


def abi_view(args, cwd):
    """The ABI-relevant part of one compile or link command line."""
    v = {"defines": set(), "std": set(), "includes": set(), "libs": set(), "libdirs": set()}
    it = iter(args)
    for a in it:
        if a in ("-I", "-isystem", "-L"):
            a = a + next(it)
        if a.startswith("-D") and re.match(r"-D(TORCH_|PYBIND11_|_GLIBCXX_USE_CXX11_ABI)", a):
            v["defines"].add(a)
        elif a.startswith("-std="):
            v["std"].add(a)
        elif a.startswith("-isystem") or a.startswith("-I"):
            d = a[8:] if a.startswith("-isystem") else a[2:]
            v["includes"].add(os.path.realpath(os.path.join(cwd, d)))
        elif a.startswith("-l") and a[2:] not in ("pthread", "dl", "rt"):
            v["libs"].add(a[2:])
        elif a.startswith("-L"):
            v["libdirs"].add(os.path.realpath(os.path.join(cwd, a[2:])))
    return v


def step_setup():
    rc, out = run(["sh", os.path.join(EXAMPLE, "setup-pythons")] + [], stderr=subprocess.STDOUT)
    print(out.strip())
    return check(rc == 0 and all(os.path.exists(p) for p in PYTHONS.values()),
                 "setup-pythons made the torch venvs for 3.12 and 3.13")


def step_copy(tmp):
    """The example copied to tmp/torchext with the precompiled header forced (pch = "on") and
    its pythons table naming the torch 2.11 venvs by absolute path. Sets PROJ."""
    global PROJ
    PROJ = os.path.join(tmp, "torchext")
    shutil.copytree(EXAMPLE, PROJ, ignore=shutil.ignore_patterns("build", "dist"))
    path = os.path.join(PROJ, "pyproject.toml")
    text = open(path).read()
    text = re.sub(r'(?m)^"(3\.1[0-4])" = .*$',
                  lambda m: '"%s" = "%s"' % (m[1], PYTHONS[m[1]]) if m[1] in PYTHONS else "", text)
    forced = text.replace('kind = "torch"\n', 'kind = "torch"\npch = "on"\n', 1)
    open(path, "w").write(forced)
    return check(forced != text, "the copy of the example forces the PCH (pch = \"on\")")


def step_build(tmp):
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"))
    # The torch 2.11 x CUDA 13.0 cells; the whole matrix (with torch 2.6 x CUDA 12.4) is
    # test_torch_ext_matrix's.
    rc, out = run([CUWHEEL, "build", "--no-test", "--only", "*-pt211-cu130-*"], cwd=PROJ,
                  env=env)
    print(out[-3000:])
    check(rc == 0, "cuwheel build of examples/torchext exits 0")
    wheels = sorted(os.listdir(os.path.join(tmp, "dist"))) if os.path.isdir(
        os.path.join(tmp, "dist")) else []
    for v in ("3.12", "3.13"):
        tag = "cp%s" % v.replace(".", "")
        check(any(w.startswith("torchext-0.1.0+pt211cu130-%s-%s-" % (tag, tag)) for w in wheels),
              "a %s wheel with the local label +pt211cu130 is in dist/ (%s)" % (tag, wheels))
    build = os.path.join(tmp, "build")
    text = open(os.path.join(build, "build.ninja")).read()
    edges = ninja_edges(text)
    nvcc = [o for o, e in edges.items() if e["rule"] == "nvcc" and o.startswith("kernels/")]
    check(sorted(o.rsplit("/", 1)[-1] for o in nvcc) == ["ops.cu.o", "square.cu.o"],
          "build.ninja has one nvcc edge per kernel .cu for both cells: %s" % nvcc)
    # binding/square.cpp and binding/scale.cu include torch/extension.h but use no Python:
    # proven Python-free (by the expansion; their compile in ninja is the proof's), each
    # compiled once for both cells, with the stand-ins first and no Python include dir.
    for src, rule in (("binding/square.cpp", "cc"), ("binding/scale.cu", "nvcc")):
        es = [(o, e) for o, e in edges.items() if e["rule"] == rule
              and any(i.endswith(src) for i in e["inputs"])]
        check(len(es) == 1 and es[0][0].startswith("shared/")
              and "-Ipyfree/include" in es[0][1]["flags"] and "python3" not in es[0][1]["flags"],
              "%s: one shared %s edge, the stand-ins first, no Python dir: %s"
              % (src, rule, [(o, e.get("flags", "")[:200]) for o, e in es]))
    check(all("-DTORCH" not in edges[o]["flags"] and "torch/include" not in edges[o]["flags"]
              and "-Itorch/" not in edges[o]["flags"] for o in nvcc),
          "csrc/square.cu's torch include is behind #ifndef __CUDACC__: no torch in nvcc flags")
    objs = [o for o in edges if "/obj/" in o and o.startswith("kernels/")]
    check(len(objs) == len(set(objs)) == 3 and len({o.rsplit("/", 2)[-2] for o in objs}) == 3,
          "csrc/ops.cu and csrc/ops.cpp (one basename) give two distinct objects: %s" % objs)
    pch = [o for o, e in edges.items() if e["rule"] == "cc_pch"]
    check(len(pch) == 2 and all(o.endswith("binding/ops.cpp.o") for o in pch),
          "binding/ops.cpp (PYBIND11_MODULE: per Python) uses the PCH in both cells: %s" % pch)
    gch = [o for o, e in edges.items() if e["rule"] == "pch"]
    check(len(gch) == 1 and gch[0].startswith("shared/") and gch[0].endswith("/torch_all.h.gch")
          and all(gch[0] in edges[o]["implicit"] for o in pch),
          "one shared .gch of torch/all.h serves both cells: %s" % gch)
    log = [l.split("\t") for l in open(os.path.join(build, ".ninja_log")) if not l.startswith("#")]
    ran_nvcc = [l[3] for l in log if len(l) > 3 and l[3].endswith("ops.cu.o")]
    check(len(ran_nvcc) == 1, ".ninja_log: ops.cu compiled once, not per cell (%s)" % ran_nvcc)
    bindings = [l[3] for l in log if len(l) > 3 and l[3].endswith("binding/ops.cpp.o")]
    check(len(bindings) == 2, ".ninja_log: the binding compiled once per cell (%d)" % len(bindings))
    for src in ("binding/square.cpp.o", "binding/scale.cu/scale.cu.o"):
        ran = [l[3] for l in log if len(l) > 3 and l[3].endswith(src)]
        check(len(ran) == 1, ".ninja_log: %s compiled once for both cells (%s)" % (src, ran))
    return wheels, edges


def sha256s(dist):
    import hashlib
    return {w: hashlib.sha256(open(os.path.join(dist, w), "rb").read()).hexdigest()
            for w in sorted(os.listdir(dist)) if w.endswith(".whl")}


def recorded_answers(build):
    """The scan answers a build recorded for its own compiles ("b" after the format line), and
    the objects the proof kept, in build/scan."""
    scan = os.path.join(build, "scan")
    names = os.listdir(scan) if os.path.isdir(scan) else []
    rec = [os.path.join(scan, n) for n in names if n.endswith(".scan")
           and open(os.path.join(scan, n)).read().split("\n")[1:2] == ["b"]]
    return rec, [n for n in names if n.endswith(".obj")]


def step_recorded(tmp, env):
    """The build recorded the proof's answers of its two compiles: plan and the build again
    compile nothing. Returns the recorded answers' files."""
    build = os.path.join(tmp, "build")
    rec, objs = recorded_answers(build)
    check(len(rec) == 2 and not objs,
          "the build recorded its compiles of square.cpp and scale.cu as the proof's answers "
          "(%d, objects kept: %s)" % (len(rec), objs))
    rc, out = run([CUWHEEL, "plan", "--only", "*-pt211-cu130-*"], cwd=PROJ, env=env)
    check(rc == 0 and not recorded_answers(build)[1],
          "cuwheel plan after the build compiles nothing (no object kept)")
    rc, out = run([CUWHEEL, "build", "--no-test", "--only", "*-pt211-cu130-*"], cwd=PROJ,
                  env=env)
    check(rc == 0 and "no work to do" in out, "the build again runs no step: %s" % out[-800:])
    return rec


def step_proof_objects(tmp):
    """`cuwheel plan` without recorded answers runs the Python-free proof's compiles itself (the
    build's own command), keeping the objects; the build after it copies them (proof_obj
    edges) instead of compiling: the wheels' sha256 equal those of the build whose ninja
    compiled them."""
    dist = os.path.join(tmp, "dist")
    before = sha256s(dist)
    env = dict(os.environ, CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"), CUWHEEL_DIST_DIR=dist)
    for f in step_recorded(tmp, env):
        os.unlink(f)
    rc, out = run([CUWHEEL, "plan", "--only", "*-pt211-cu130-*"], cwd=PROJ, env=env)
    if not check(rc == 0, "cuwheel plan (the proof's compiles run) exits 0"):
        print(out[-3000:])
        return
    rc, out = run([CUWHEEL, "build", "--no-test", "--only", "*-pt211-cu130-*"], cwd=PROJ,
                  env=env)
    if not check(rc == 0, "the build again, after plan, exits 0"):
        print(out[-3000:])
        return
    build = os.path.join(tmp, "build")
    edges = ninja_edges(open(os.path.join(build, "build.ninja")).read())
    for base in ("square.cpp.o", "scale.cu.o"):
        es = [(o, e) for o, e in edges.items() if e["rule"] == "proof_obj"
              and o.endswith("/" + base)]
        check(len(es) == 1 and es[0][0].startswith("shared/")
              and es[0][1]["inputs"][0].startswith("scan/")
              and es[0][1]["inputs"][0].endswith("/" + base)
              and "-Ipyfree/include" in es[0][1].get("compiled_by", ""),
              "%s: the shared object is the proof's (a proof_obj edge from scan/): %s"
              % (base, es))
    after = sha256s(dist)
    check(before and before == after,
          "the wheels' sha256, ninja's compiles vs the proof's objects: %s / %s"
          % (before, after))


def sections(obj):
    """{name: bytes} of the .text* and .rodata* sections of an object file."""
    rc, out = run(["readelf", "-S", "-W", obj])
    names = [m.group(1) for m in re.finditer(r"\]\s+(\.(?:text|rodata)\S*)\s", out)]
    d = tempfile.mkdtemp(prefix="sections-")
    args = ["objcopy"]
    for i, n in enumerate(names):
        args += ["--dump-section", "%s=%s/%d" % (n, d, i)]
    rc, out = run(args + [obj, os.path.join(d, "copy.o")])
    got = {}
    for i, n in enumerate(names):
        p = os.path.join(d, str(i))
        got[n] = open(p, "rb").read() if os.path.exists(p) else b""  # NOBITS: no bytes
    shutil.rmtree(d, ignore_errors=True)
    return got


def step_pch_equivalence(tmp, edges):
    """binding/ops.cpp of cp312, compiled again without the PCH flags: its .text and .rodata
    sections must equal those of the object built with the precompiled torch/all.h. Then the
    cp313 compile of it, rerun with -H, must load the .gch (gcc prints "! path.gch"; an invalid
    one would be "x path.gch" and the header parsed as text)."""
    build = os.path.join(tmp, "build")
    cell = CELLS["3.12"]
    out = "cells/%s/obj/torchext._C/binding/ops.cpp.o" % cell
    e = edges.get(out)
    if not check(e is not None and e["rule"] == "cc_pch", "%s was built with the PCH" % out):
        return
    flags = shlex.split(e["flags"])
    i = flags.index("-include")
    plain = flags[:i] + [f for f in flags[i + 2:] if f not in ("-Winvalid-pch", "-fpch-preprocess")]
    cxx = shlex.split(e["cc"])
    rc, msg = run(cxx + plain + ["-c", e["inputs"][0], "-o", "nopch.o"], cwd=build)
    if not check(rc == 0, "the same source compiles without the PCH"):
        print(msg[-2000:])
        return
    a, b = sections(os.path.join(build, out)), sections(os.path.join(build, "nopch.o"))
    differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
    check(a and not differ,
          "with and without the PCH: %d .text/.rodata sections (%d bytes), identical%s" % (
              len(a), sum(len(v) for v in a.values()),
              "" if not differ else "; differ: %s" % differ[:5]))
    e = edges.get("cells/%s/obj/torchext._C/binding/ops.cpp.o" % CELLS["3.13"])
    if not check(e is not None and e["rule"] == "cc_pch", "the cp313 object was built with the PCH"):
        return
    rc, msg = run(cxx + shlex.split(e["flags"]) + ["-H", "-c", e["inputs"][0], "-o", "h.o"],
                  cwd=build)
    used = [l for l in msg.splitlines() if l.startswith("! ") and l.endswith("torch_all.h.gch")]
    check(rc == 0 and len(used) == 1,
          "gcc -H: the cp313 compile loads the shared .gch (%s)" % (
              used or [l for l in msg.splitlines() if ".gch" in l][:3] or msg[-500:]))


def step_audit_and_metadata(tmp, wheels):
    for w in wheels:
        path = os.path.join(tmp, "dist", w)
        rc, out = run([CUWHEEL, "audit", path])
        print(out.strip())
        check(rc == 0 and ": OK" in out, "cuwheel audit passes %s" % w)
        for lib in ("libc10.so", "libcudart.so.13"):
            check("%s (torch)" % lib in out, "the audit names torch as the provider of %s" % lib)
        import zipfile
        with zipfile.ZipFile(path) as z:
            meta = z.read([n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0])
        check(b"Requires-Dist: torch>=2.11,<2.12" in meta.decode().encode(),
              "%s declares Requires-Dist: torch>=2.11,<2.12" % w)


def step_run_wheels(tmp, wheels):
    for v, py in PYTHONS.items():
        tag = "cp%s" % v.replace(".", "")
        w = [x for x in wheels if "-%s-" % tag in x]
        if not w:
            continue
        target = os.path.join(tmp, "site-" + v)
        rc, out = run([py, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target",
                       target, os.path.join(tmp, "dist", w[0])])
        check(rc == 0, "pip installs %s into a target dir" % w[0])
        env = dict(os.environ, PYTHONPATH=target)
        rc, out = run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       os.path.join(EXAMPLE, "tests")], cwd=tmp, env=env)
        print(out.strip()[-800:])
        check(rc == 0, "Python %s: the installed wheel's ops equal the pure-torch reference" % v)


SETUP_PY = """
import json, os, sys
import setuptools
from setuptools._distutils import ccompiler
from torch.utils import cpp_extension as ce

# Keep the commands, run nothing: ninja's build.ninja holds the compiles, spawn the link.
ce._run_ninja_build = lambda *a, **k: None
links = []
def spawn(self, cmd, **kw):
    links.append(list(cmd))
ccompiler.CCompiler.spawn = spawn
setuptools.setup(
    name="torchext",
    ext_modules=[ce.CUDAExtension("torchext._C", SOURCES, include_dirs=INCLUDES)],
    cmdclass={"build_ext": ce.BuildExtension},
    script_args=["build_ext", "--build-temp", "tmp", "--build-lib", "lib"],
)
json.dump(links, open("links.json", "w"))
"""


def step_compare_buildextension(tmp, edges):
    py = PYTHONS["3.12"]
    work = os.path.join(tmp, "buildext")
    os.makedirs(work)
    sources = [os.path.join(PROJ, "binding", "ops.cpp"), os.path.join(PROJ, "csrc", "ops.cu")]
    # (setup.py's extra_compile_args stay empty: what BuildExtension passes by default.)
    with open(os.path.join(work, "setup.py"), "w") as f:
        f.write("SOURCES = %r\nINCLUDES = %r\n" % (sources, [os.path.join(PROJ, "csrc")]))
        f.write(SETUP_PY)
    # The toolkit nvcc on PATH belongs to, as cuwheel finds it: an nvcc on PATH may be a wrapper
    # script (/usr/local/bin/nvcc execs /usr/local/cuda-13.0/bin/nvcc), whose parent torch
    # would take for CUDA_HOME; the wrapped nvcc names its directory (nvcc -dryrun: _HERE_).
    nvcc = shutil.which("nvcc") or "/usr/local/cuda-13.0/bin/nvcc"
    dry = subprocess.run([nvcc, "-dryrun", "-E", "-x", "cu", "/dev/null"], capture_output=True,
                         text=True)
    here = re.search(r"_HERE_=(\S+)", dry.stdout + dry.stderr)
    cuda_home = os.path.dirname(os.path.realpath(here.group(1) if here else os.path.dirname(nvcc)))
    env = dict(os.environ, CUDA_HOME=cuda_home, TORCH_CUDA_ARCH_LIST="9.0", MAX_JOBS="1")
    rc, out = run([py, "setup.py"], cwd=work, env=env)
    if not check(rc == 0, "torch's BuildExtension wrote its build.ninja (CUDA_HOME=%s)" % cuda_home):
        print(out[-3000:])
        return
    tnin = ninja_edges(open(os.path.join(work, "tmp", "build.ninja")).read())
    tvars = {}
    for line in open(os.path.join(work, "tmp", "build.ninja")):
        m = re.match(r"^(\w+) = (.*)$", line.rstrip("\n"))
        if m:
            tvars[m.group(1)] = m.group(2)
    torch_cxx = shlex.split(tvars.get("cflags", "")) + shlex.split(tvars.get("post_cflags", ""))
    torch_cu = shlex.split(tvars.get("cuda_cflags", "")) + shlex.split(tvars.get("cuda_post_cflags", ""))
    links = __import__("json").load(open(os.path.join(work, "links.json")))
    link = [c for c in links if "-shared" in c or any(a.endswith(".so") for a in c)]
    check(bool(link), "the link command of BuildExtension was captured")
    if not link:
        return
    torch_link = link[-1]

    build = os.path.join(tmp, "build")
    cell = CELLS["3.12"]
    cc = [e for o, e in edges.items() if o.startswith("cells/%s/" % cell) and o.endswith("binding/ops.cpp.o")]
    ld = [e for o, e in edges.items() if o.startswith("cells/%s/lib/" % cell) and e["rule"] == "link"]
    ours_cxx = abi_view(shlex.split(cc[0]["flags"]), build)
    theirs_cxx = abi_view(torch_cxx, work)
    # setuptools (not cpp_extension) adds <venv>/include: empty, it can change nothing.
    theirs_cxx["includes"] = {d for d in theirs_cxx["includes"]
                              if any(files for _, _, files in os.walk(d))}
    print("torch  cxx:", sorted(theirs_cxx["defines"]), sorted(theirs_cxx["std"]))
    print("cuwheel cxx:", sorted(ours_cxx["defines"]), sorted(ours_cxx["std"]))
    check(ours_cxx["defines"] == theirs_cxx["defines"],
          "binding: the TORCH_/PYBIND11_/_GLIBCXX_USE_CXX11_ABI defines are identical")
    check(ours_cxx["std"] == theirs_cxx["std"] == {"-std=c++17"}, "binding: -std is identical")
    # Point 4: the optimisation level and the flags that change code are BuildExtension's
    # (CPython's sysconfig CFLAGS, which setuptools passes); debug info (-g) and warnings differ.
    def code_flags(args):
        return {a for a in args if re.match(r"-O|-DNDEBUG$|-fwrapv$|-fno-strict-overflow$|"
                                            r"-fPIC$|-f(no-)?(exceptions|rtti|fast-math)$", a)}
    ours_code, theirs_code = code_flags(shlex.split(cc[0]["flags"])), code_flags(torch_cxx)
    print("torch  code flags:", sorted(theirs_code), "cuwheel:", sorted(ours_code))
    check(ours_code == theirs_code,
          "binding: optimisation and code-affecting flags are identical (%s)" % sorted(ours_code))
    check(ours_cxx["includes"] == theirs_cxx["includes"],
          "binding: include dirs are the same set (only in cuwheel: %s; only in torch: %s)" % (
              sorted(ours_cxx["includes"] - theirs_cxx["includes"]),
              sorted(theirs_cxx["includes"] - ours_cxx["includes"])))
    ours_ld = abi_view(shlex.split(ld[0]["ldflags"]), build)
    theirs_ld = abi_view(torch_link, work)
    # setuptools (not cpp_extension) adds the Python's LIBDIR for a shared libpython; no
    # -lpython follows, so nothing is taken from it.
    rc, libdir = run([py, "-c", "import sysconfig; print(sysconfig.get_config_var('LIBDIR'))"])
    theirs_ld["libdirs"].discard(os.path.realpath(libdir.strip()))
    print("torch  link:", sorted(theirs_ld["libs"]), sorted(theirs_ld["libdirs"]))
    print("cuwheel link:", sorted(ours_ld["libs"]), sorted(ours_ld["libdirs"]))
    check(ours_ld["libs"] == theirs_ld["libs"], "link: the libraries are identical")
    check(ours_ld["libdirs"] == theirs_ld["libdirs"], "link: the library dirs are identical")
    # The kernels include no torch header, so cuwheel compiles them without torch's defines
    # (that is what lets one archive serve every torch); the language standard must agree.
    theirs_cu = abi_view(torch_cu, work)
    nv = [e for o, e in edges.items() if e["rule"] == "nvcc" and o.startswith("kernels/")][0]
    ours_cu = abi_view(shlex.split(nv["flags"]), build)
    check(ours_cu["std"] == theirs_cu["std"], "kernels: nvcc -std is identical (%s)" % ours_cu["std"])
    check(not ours_cu["defines"], "kernels: no TORCH_* define in a kernel that includes no torch header")


def main():
    if not os.access(CUWHEEL, os.X_OK):
        print("test_torch_ext: no cuwheel binary at %s" % CUWHEEL)
        return 1
    if not step_setup():
        return 1
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchext-")
    try:
        if not step_copy(tmp):
            return 1
        wheels, edges = step_build(tmp)
        if wheels:
            step_proof_objects(tmp)
            step_pch_equivalence(tmp, edges)
            step_audit_and_metadata(tmp, wheels)
            step_run_wheels(tmp, wheels)
        step_compare_buildextension(tmp, edges)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("test_torch_ext: kept %s" % tmp)
    print("test_torch_ext: %s" % ("%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
