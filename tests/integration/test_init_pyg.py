"""A project shaped like the PyG family (torch_scatter, torch_sparse, torch_cluster) builds with
no config on a machine without a GPU into wheels with CUDA code, each .cu compiled once per
toolkit, the op sources shared by the Pythons, a further Python cheap (tests/init/pygops):

- per op one _<op>_cpu and one _<op>_cuda extension; the op's csrc/<op>.cpp is compiled into
  both with other define_macros (WITH_CUDA only for _cuda) and starts with #include <Python.h>;
- setup.py decides CUDA with `torch.cuda.is_available() or FORCE_CUDA == "1"`: cuwheel's
  capture sets FORCE_CUDA=1, so the _cuda extensions exist here;
- the implementations include <torch/torch.h>, which reaches Python.h only under the
  -DTORCH_API_INCLUDE_EXTENSION_H the compile adds (the plan must see what the compile sees);
- shift's kernel has an nvcc flag scale's has not (--use_fast_math): compiled among its
  extension's sources with its own nvcc-flags, not refused;
- the libraries define no PyInit_ on Linux (the package loads them with
  torch.ops.load_library): init finds that with the preprocessor and writes loaded-by = "path"
  for each, the build's audit is told so (--library) and asks no PyInit_ of them, and the
  config-free import test imports the package (`import torch, pygops`), which loads them.

Checks: `build --only 'cp312*'` (CPU seconds T1, from wait4: the machine is loaded, wall time
says nothing; ccache off, so nothing of an earlier run is reused), beside it `pip wheel
--no-build-isolation` of another copy (FORCE_CUDA=1, the same arch): the cp312 wheel's file
list and Requires-Dist equal pip's but for cuwheel's torch range (issue 39); then `build` of both Pythons in the same build dir (T2: what the further Python
cost); T2 <= 15% of T1; every wheel has both _cuda libraries with sm_90 code; build.ninja has
one nvcc edge per .cu and .ninja_log one object per .cu, two per op source (the _cpu and _cuda
defines) and none per Python; then `plan --setup-env FORCE_CUDA=0` says that setup.py declared
no CUDA source, the .cu files it found and the switch, and labels the wheels without CUDA.

One arch (TORCH_CUDA_ARCH_LIST=9.0); 12 torch compiles, ~10 CPU-min, and pip's build of the
same project (10 compiles): label `extended`.
Needs the torch 2.11 venvs (build/torch-pythons) and a CUDA 13 toolkit. Run from the repository
root with $CUWHEEL set (CTest does both)."""
import email.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENVS = [os.path.join(ROOT, "build", "torch-pythons", v, "bin") for v in ("py3.12", "py3.13")]
OPS = ["scale", "shift"]
ARCH = ["--setup-env", "TORCH_CUDA_ARCH_LIST=9.0"]


def start(argv, env, cwd):
    """A command started, its output going to a temporary file (for timed_wait)."""
    out = tempfile.TemporaryFile()
    return argv, out, time.time(), subprocess.Popen(argv, env=env, cwd=cwd, stdout=out,
                                                    stderr=subprocess.STDOUT)


def timed(argv, env, cwd):
    """(exit status, output, CPU seconds of the command and everything it waited for)."""
    return timed_wait(start(argv, env, cwd))


def timed_wait(started):
    """timed() of a command start() started."""
    argv, out, t, p = started
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    text = out.read().decode("utf-8", "replace")
    cpu = ru.ru_utime + ru.ru_stime
    print(text[-3000:])
    print("%s: rc %d, %.1f CPU-s, %.0f s wall" % (" ".join(argv[1:]), p.returncode, cpu,
                                                   time.time() - t))
    return p.returncode, text, cpu


def ninja_edges(build_ninja, src):
    """The build edges whose explicit inputs name src (a project-relative path)."""
    edges = []
    for line in open(build_ninja, encoding="utf-8"):
        if not line.startswith("build "):
            continue
        head, _, ins = line.partition(": ")
        ins = re.split(r"(?<!\$) ", ins.split(" | ")[0].split(" || ")[0].strip())[1:]
        if any(i == src or i.endswith("/" + src) for i in ins):
            edges.append(line.strip())
    return edges


def ninja_blocks(build_ninja):
    """Each build edge of build_ninja with its indented variable lines, as one string."""
    blocks = []
    for line in open(build_ninja, encoding="utf-8"):
        if line.startswith("build "):
            blocks.append(line)
        elif blocks and line.startswith("  "):
            blocks[-1] += line
        elif not line.strip():
            blocks.append("") if blocks and blocks[-1] else None
    return [b for b in blocks if b]


def logged_objects(ninja_log, name):
    """The distinct outputs .ninja_log records for objects of source file name (its basename)."""
    outs = set()
    for line in open(ninja_log, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) == 5 and f[3].endswith(".o") and "/%s/" % name in f[3] or \
                len(f) == 5 and f[3].endswith("/%s.o" % name):
            outs.add(f[3])
    return outs


def check_wheel(path, tag):
    names = zipfile.ZipFile(path).namelist()
    z = zipfile.ZipFile(path)
    for op in OPS:
        for suffix in ("cpu", "cuda"):
            m = "pygops/_%s_%s.cpython-%s-x86_64-linux-gnu.so" % (op, suffix, tag)
            check(m in names, "%s: the wheel holds %s" % (tag, m))
        lib = "pygops/_%s_cuda.cpython-%s-x86_64-linux-gnu.so" % (op, tag)
        if lib in names:
            data = z.read(lib)
            check(b".nv_fatbin" in data and (b"%s_kernel" % op.encode()) in data,
                  "%s: %s holds CUDA code (.nv_fatbin, %s_kernel)" % (tag, lib, op))
            cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
            if os.path.exists(cuobjdump):
                tmp = tempfile.NamedTemporaryFile(suffix=".so")
                tmp.write(data)
                tmp.flush()
                rc, out = run([cuobjdump, "--list-elf", tmp.name])
                check(rc == 0 and "sm_90" in out, "%s: %s holds sm_90 code (%s)"
                      % (tag, lib, out.strip()[-300:]))


def wheel_contents(whl):
    """The members outside .dist-info, and METADATA's headers."""
    z = zipfile.ZipFile(whl)
    members = sorted(n for n in z.namelist() if not n.split("/", 1)[0].endswith(".dist-info"))
    meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]
    return members, email.parser.Parser().parsestr(z.read(meta).decode())


def requirements(reqs):
    """Requires-Dist entries in packaging's spelling (the torch venv's packaging parses)."""
    out = subprocess.run([os.path.join(VENVS[0], "python"), "-c",
                          "import sys\nfrom packaging.requirements import Requirement\n"
                          "for l in sys.stdin.read().splitlines():\n    print(Requirement(l))"],
                         input="\n".join(reqs), capture_output=True, text=True)
    check(out.returncode == 0, "packaging parses Requires-Dist: %s" % out.stderr[-400:])
    return sorted(out.stdout.splitlines())


def compare_with_pip(ours, pips):
    """Issue 39's rule: the file list and Requires-Dist of pip's wheel, but for cuwheel's own
    additions (the torch range of the torch it was built with, its local label)."""
    (om, ometa), (pm, pmeta) = wheel_contents(ours), wheel_contents(pips)
    check(om == pm, "the same files as pip's wheel:\n  cuwheel %s\n  pip     %s" % (om, pm))
    oreq = ometa.get_all("Requires-Dist") or []
    added = [r for r in oreq if r.replace(" ", "").startswith("torch>=2.11,<2.12")]
    preq = requirements(pmeta.get_all("Requires-Dist") or [])
    check(requirements([r for r in oreq if r not in added]) == preq and len(added) <= 1,
          "the same Requires-Dist as pip's but cuwheel's torch range: %s vs %s"
          % (oreq, preq))
    check(ometa["Name"] == pmeta["Name"] and ometa["Version"].split("+")[0] == pmeta["Version"],
          "the same name and version (%s %s, %s %s)"
          % (ometa["Name"], ometa["Version"], pmeta["Name"], pmeta["Version"]))


def main():
    if not all(os.path.exists(os.path.join(v, "python")) for v in VENVS):
        skip("no torch venvs at build/torch-pythons (examples/torchext/setup-pythons)")
    tmp = tempfile.mkdtemp(prefix="cuwheel-init-pyg-")
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    env["PATH"] = os.pathsep.join(VENVS + [env.get("PATH", "")])
    # No ccache: an earlier run's objects would make the first wheel cheap and the ratio
    # meaningless.
    env["CUWHEEL_CCACHE"] = "off"
    proj = os.path.join(tmp, "pygops")
    shutil.copytree(os.path.join(ROOT, "tests", "init", "pygops"), proj)
    env.update(CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"))
    build = env["CUWHEEL_BUILD_DIR"]
    try:
        # pip's build of the same project, beside cuwheel's first wheel (CPU-s each their own).
        pips = os.path.join(tmp, "pygops-pip")
        shutil.copytree(os.path.join(ROOT, "tests", "init", "pygops"), pips)
        penv = dict(env, FORCE_CUDA="1", TORCH_CUDA_ARCH_LIST="9.0", MAX_JOBS="2")
        pip = start([os.path.join(VENVS[0], "python"), "-m", "pip", "wheel",
                     "--no-build-isolation", "--no-deps", "--no-index", "-w",
                     os.path.join(tmp, "pipdist"), pips], penv, tmp)
        rc, out, t1 = timed([CUWHEEL, "build", "--only", "cp312*", "-j", "2"] + ARCH, env, proj)
        prc, pout, tpip = timed_wait(pip)
        check(prc == 0, "pip wheel of the fixture exits 0")
        print("pip wheel: %.1f CPU-s (cuwheel's first wheel %.1f)" % (tpip, t1))
        check(rc == 0, "build --only cp312 with no config exits 0")
        check(out.count("cuwheel: no [tool.cuwheel]: the build is read from setup.py") == 1,
              "the capture is said in one line")
        config = open(os.path.join(build, "init", "cuwheel.toml")).read()
        check("FORCE_CUDA=1" in config and 'module = "pygops._scale_cuda"' in config,
              "setup.py ran with FORCE_CUDA=1: the _cuda extensions exist")
        shift_cuda = config.split('module = "pygops._shift_cuda"')[-1].split("[[")[0]
        check('nvcc-flags = ["-O2", "--use_fast_math"]' in shift_cuda,
              "shift's kernel keeps its own nvcc-flags in its extension (not refused)")
        for op in OPS:
            for suffix in ("cpu", "cuda"):
                table = config.split('module = "pygops._%s_%s"' % (op, suffix))[-1]
                table = table.split("\n[")[0]
                check('loaded-by = "path"' in table and "no source defines PyInit__%s_%s"
                      % (op, suffix) in table,
                      "pygops._%s_%s: loaded-by = \"path\" (the preprocessor found no "
                      "PyInit_)" % (op, suffix))
        check("command = \"python -c 'import torch, pygops'\"" in config,
              "the import test imports the package, which loads its libraries")
        bn0 = open(os.path.join(build, "build.ninja"), encoding="utf-8").read()
        for op in OPS:
            for suffix in ("cpu", "cuda"):
                check(bn0.count("--library pygops._%s_%s" % (op, suffix)) == 1,
                      "the audit is told pygops._%s_%s is a library (--library)"
                      % (op, suffix))

        rc, out, t2 = timed([CUWHEEL, "build", "-j", "2"] + ARCH, env, proj)
        check(rc == 0, "build of both Pythons in the same build dir exits 0")
        print("first wheel %.1f CPU-s, the further Python %.1f CPU-s (%.1f%%)"
              % (t1, t2, 100.0 * t2 / t1 if t1 else 0))
        check(t1 > 0 and t2 <= 0.15 * t1,
              "a further Python costs <= 15%% of the first wheel (%.1f of %.1f CPU-s)"
              % (t2, t1))

        dist = os.path.join(tmp, "dist")
        whls = sorted(n for n in os.listdir(dist) if n.endswith(".whl"))
        for tag in ("312", "313"):
            w = [n for n in whls if "-cp%s-cp%s-" % (tag, tag) in n]
            if check(len(w) == 1 and "+pt211cu130-" in w[0],
                     "one cp%s wheel labelled pt211cu130 (%s)" % (tag, whls)):
                check_wheel(os.path.join(dist, w[0]), tag)

        pw = [n for n in os.listdir(os.path.join(tmp, "pipdist")) if n.endswith(".whl")] \
            if os.path.isdir(os.path.join(tmp, "pipdist")) else []
        ow = [n for n in whls if "-cp312-cp312-" in n]
        if check(len(pw) == 1 and len(ow) == 1, "one cp312 wheel each way (%s, %s)" % (pw, ow)):
            compare_with_pip(os.path.join(dist, ow[0]), os.path.join(tmp, "pipdist", pw[0]))

        bn = os.path.join(build, "build.ninja")
        log = os.path.join(build, ".ninja_log")
        for op in OPS:
            cu = "csrc/cuda/%s_cuda.cu" % op
            edges = ninja_edges(bn, cu)
            check(len(edges) == 1, "%s: one edge compiles it, for the one toolkit (%s)"
                  % (cu, edges))
            objs = logged_objects(log, "%s_cuda.cu" % op)
            check(len(objs) == 1, "%s: compiled once in both builds (%s)" % (cu, sorted(objs)))
            src = "csrc/%s.cpp" % op
            edges = ninja_edges(bn, src)
            objs = logged_objects(log, "%s.cpp" % op)
            check(len(edges) == 2 and len(objs) == 2 and
                  not any("/cp31" in o for o in objs),
                  "%s: compiled twice (the _cpu and _cuda defines), shared by the Pythons "
                  "(%s; %s)" % (src, edges, sorted(objs)))
        fast = [b.split(":")[0] for b in ninja_blocks(bn) if "--use_fast_math" in b]
        check(len(fast) == 1 and fast[0].endswith("/shift_cuda.cu.o"),
              "--use_fast_math reaches shift's kernel alone (%s)" % fast)

        # Without the switch setup.py sees no CUDA (no GPU here): plan says what it found.
        rc, out = run([CUWHEEL, "plan", "--setup-env", "FORCE_CUDA=0"] + ARCH, env=env, cwd=proj)
        print(out[-3000:])
        # setup.py's string constants name FORCE_CUDA and WITH_CUDA (its define_macros).
        check(rc == 0 and re.search(
              r"warning: setup\.py declared no CUDA source, though the project holds \.cu files "
              r"\(csrc/cuda/scale_cuda\.cu csrc/cuda/shift_cuda\.cu\) and setup\.py names "
              r"FORCE_CUDA( WITH_CUDA)?: it decided on a CPU-only build with the switches it "
              r"was given \(FORCE_CUDA=0", out) is not None,
              "plan without the switch says setup.py declared no CUDA source, the .cu files "
              "and the switch")
        check("set the switch setup.py reads to build CUDA" in out, "plan says how to switch")
        check("+pt211-cp312" in out and "cu130-cp312" not in out,
              "plan without the switch labels the wheels without CUDA")
    finally:
        if failures:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
