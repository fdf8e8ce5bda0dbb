"""A project without torch whose two extensions compile one kernel source with other defines
builds with no config, each kernel compiled once per (toolkit, flag set), never per Python, and
linked only into the extensions that list it (tests/init/plainops):

- plainops._cpu and plainops._cuda (setuptools Extensions; a build_ext of the project's own
  hands the .cu to nvcc) both list csrc/variant.cpp, with PLAINOPS_CPU for _cpu and WITH_CUDA
  for _cuda; variant.cpp includes no Python header and returns "cpu" or "cuda" by its define;
  _cuda also lists csrc/scale.cu, which #errors without WITH_CUDA.

Checks: `cuwheel init` writes a config (no refusal) where each extension lists its kernels and
the kernels table none; `build` with no config for Python 3.12 and 3.13 (the venvs of
build/torch-pythons, whose setuptools the capture needs) gives two wheels; build.ninja compiles
variant.cpp twice (the two define sets) and scale.cu once, all three into shared/ (once per
toolkit and flag set, not per Python), the bindings once per Python; each module links only its
own objects; `internal render-ninja` of the plan.json the build wrote gives the same
build.ninja; in each wheel, with its own Python, _cpu.variant() is "cpu", _cuda.variant()
"cuda", _cuda.scale_variant() names WITH_CUDA, and _cuda.devices() calls the CUDA runtime;
`plan` says which sources are shared; and the cp312 wheel of `build --only 'cp312*'` of a copy
in another directory, with another build dir, has the same bytes.

One arch (7.5); ~30 s wall on a quiet 2-core machine. Needs a CUDA 13 toolkit and the torch
2.11 venvs (their interpreters; torch itself is not used). Run from the repository root with
$CUWHEEL set (CTest does both)."""
import os
import re
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, in_tmp, run  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENVS = {v: os.path.join(ROOT, "build", "torch-pythons", "py" + v, "bin") for v in ("3.12", "3.13")}
ARCH = ["--setup-env", "TORCH_CUDA_ARCH_LIST=7.5"]


def edges(build_ninja):
    """{output: (rule, inputs, the edge's variable lines)} of build_ninja."""
    out, cur = {}, None
    for line in open(build_ninja, encoding="utf-8"):
        if line.startswith("build "):
            head, _, rest = line[6:].rstrip("\n").partition(": ")
            rule, _, ins = rest.partition(" ")
            cur = head
            out[cur] = (rule, ins.split(" | ")[0].split(), "")
        elif cur and line.startswith("  "):
            r, i, v = out[cur]
            out[cur] = (r, i, v + line)
        else:
            cur = None
    return out


def compiled(es, src):
    """The outputs of the edges that compile src (a project-relative path)."""
    return sorted(o for o, (r, ins, _) in es.items()
                  if r in ("cc", "nvcc", "nvcc_canon") and any(i.endswith("/" + src) for i in ins))


def project_env(tmp, name):
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    env["PATH"] = os.pathsep.join(list(VENVS.values()) + [env.get("PATH", "")])
    env.update(CUWHEEL_BUILD_DIR=os.path.join(tmp, name + "-build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, name + "-dist"))
    proj = os.path.join(tmp, name)
    shutil.copytree(os.path.join(ROOT, "tests", "init", "plainops"), proj)
    return proj, env


def check_graph(build):
    """build.ninja: each kernel compiled once per flag set into shared/, linked where listed."""
    bn = os.path.join(build, "build.ninja")
    es = edges(bn)
    variant = compiled(es, "csrc/variant.cpp")
    check(len(variant) == 2 and all(o.startswith("shared/") for o in variant),
          "variant.cpp: two compiles (the _cpu and _cuda defines), both shared by the "
          "Pythons (%s)" % variant)
    defs = sorted(d for o in variant for d in ("-DPLAINOPS_CPU", "-DWITH_CUDA")
                  if d in es[o][2])
    check(defs == ["-DPLAINOPS_CPU", "-DWITH_CUDA"],
          "variant.cpp: one compile with each extension's defines (%s)" % defs)
    scale = compiled(es, "csrc/scale.cu")
    check(len(scale) == 1 and scale[0].startswith("shared/") and es[scale[0]][0] == "nvcc"
          and "-DWITH_CUDA" in es[scale[0]][2] and "sm_75" in es[scale[0]][2],
          "scale.cu: one nvcc compile, shared, with _cuda's define and the one arch (%s)" % scale)
    for b in ("cpu_module.c", "cuda_module.c"):
        objs = compiled(es, "csrc/" + b)
        check(len(objs) == 2 and all(o.startswith("cells/cp31") for o in objs),
              "%s: compiled per Python (%s)" % (b, objs))
    check(not any(o.startswith("kernels/") for o in es),
          "no kernel archive: the kernels table lists no source")
    links = {o: ins for o, (r, ins, _) in es.items() if r == "link" and o.endswith(".so")}
    check(len(links) == 4, "four modules linked (%s)" % sorted(links))
    for mod, ins in links.items():
        own = "plainops._cpu" if "/_cpu." in mod else "plainops._cuda"
        theirs = [i for i in ins if "/obj/" in i and "/obj/%s/" % own not in i]
        check(not theirs and (own == "plainops._cpu") != any("scale.cu" in i for i in ins),
              "%s links only its own objects (%s)" % (mod, ins))
    plan = os.path.join(build, "plan.json")
    rc, out = run([CUWHEEL, "internal", "render-ninja", plan], stderr=subprocess.PIPE)
    check(rc == 0 and out == open(bn, encoding="utf-8").read(),
          "internal render-ninja of plan.json gives the build's build.ninja")


def check_wheels(dist, tmp):
    whls = sorted(n for n in os.listdir(dist) if n.endswith(".whl"))
    for v in VENVS:
        tag = v.replace(".", "")
        w = [n for n in whls if "-cp%s-cp%s-" % (tag, tag) in n]
        if not check(len(w) == 1, "one cp%s wheel (%s)" % (tag, whls)):
            continue
        d = os.path.join(tmp, "unpacked-" + tag)
        zipfile.ZipFile(os.path.join(dist, w[0])).extractall(d)
        rc, out = run([os.path.join(VENVS[v], "python"), "-c",
                       "import plainops._cpu as c, plainops._cuda as g\n"
                       "print(c.variant(), g.variant(), g.scale_variant(), g.devices())"],
                      cwd=d)
        check(rc == 0 and re.match(r"cpu cuda scale\.cu with WITH_CUDA \(\d+, \d+\)$",
                                   out.strip()) is not None,
              "cp%s: _cpu holds the cpu build of variant.cpp, _cuda the cuda one and "
              "scale.cu, which calls the CUDA runtime (%s)" % (tag, out.strip()[-400:]))
    return whls


def body(tmp):
    proj, env = project_env(tmp, "plainops")
    rc, out = run([CUWHEEL, "init", "-o", "-"] + ARCH, cwd=proj, env=env)
    check(rc == 0 and "one kernel archive per toolkit" not in out,
          "init writes a config for kernels with other defines per extension")
    check('sources = ["csrc/cpu_module.c", "csrc/variant.cpp"]' in out and
          'sources = ["csrc/cuda_module.c", "csrc/variant.cpp", "csrc/scale.cu"]' in out
          and "sources = []" in out and 'kind = "capi"' in out,
          "each extension lists its own kernels, the kernels table none")
    check("once per (toolkit, flags) where they hold no Python header" in out,
          "the config's comment says how they are compiled")

    rc, out = run([CUWHEEL, "build", "-j", "2"] + ARCH, cwd=proj, env=env)
    print(out[-3000:])
    check(rc == 0, "build with no config of Python 3.12 and 3.13 exits 0")
    build, dist = env["CUWHEEL_BUILD_DIR"], env["CUWHEEL_DIST_DIR"]
    check_graph(build)
    whls = check_wheels(dist, tmp)

    rc, out = run([CUWHEEL, "plan"] + ARCH, cwd=proj, env=env)
    check(rc == 0 and re.search(r"csrc/variant\.cpp +shared: once per \(toolkit, flags\)",
                                out) is not None
          and re.search(r"csrc/cpu_module\.c +per Python: its closure includes Python\.h",
                        out) is not None,
          "plan says which sources are shared and which per Python")

    # Another directory, another build dir, one Python: the same cp312 wheel.
    other, oenv = project_env(tmp, "elsewhere")
    rc, out = run([CUWHEEL, "build", "-j", "2", "--only", "cp312*"] + ARCH, cwd=other,
                  env=oenv)
    check(rc == 0, "build --only 'cp312*' of a copy elsewhere exits 0")
    w = [n for n in whls if "-cp312-" in n]
    o = os.path.join(oenv["CUWHEEL_DIST_DIR"], w[0]) if w else ""
    check(w and os.path.exists(o) and
          open(o, "rb").read() == open(os.path.join(dist, w[0]), "rb").read(),
          "the cp312 wheel's bytes do not depend on the directories or the selection")


def main():
    if not all(os.path.exists(os.path.join(v, "python")) for v in VENVS.values()):
        skip("no Python venvs at build/torch-pythons (examples/torchext/setup-pythons)")
    sys.exit(in_tmp("init-plain", body))


if __name__ == "__main__":
    main()
