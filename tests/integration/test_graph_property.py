#!/usr/bin/env python3
"""test_graph_property.py: no config string can add a line, a variable or a rule to build.ninja,
or reach a compiler as anything but itself (issue 19, class 1).

Random strings (line breaks, '$', ':', spaces, quotes, backslashes, commas, control bytes,
non-ASCII, and shell/ninja payloads that would touch a canary file) are put in every string field
that reaches the build graph: kernel defines, host-flags, nvcc-flags and include dirs; extension
defines, cflags, ldflags and include dirs; dist-dir; and the names of a kernel source and an
extension source. Each value must be either
  - refused: cuwheel exits 1 and every error is located, `pyproject.toml:LINE:COL: error:`, on
    the line that holds the value (file names: on the sources glob, naming the file), or
  - passed verbatim: with the refused values taken out, build.ninja has exactly the fixed rules
    and top-level variables, and each command ninja would run (`cuwheel build --dry-run`,
    split as /bin/sh splits it) carries the value as one argument, exactly as written.
A few iterations then build for real with compiler wrappers standing in as CC, CXX, nvcc
(an explicit [tool.cuwheel.toolkits] root whose bin/nvcc logs its argv) and nvcc's host
compiler (-ccbin): each accepted value must arrive in the argv of the compiler that nvcc runs,
after nvcc's own splitting and its /bin/sh, and the canary must never exist.

PROPERTY_SEED, PROPERTY_DRY (default 150 dry-run iterations) and PROPERTY_BUILDS (default 3
real builds) tune it. Exits 77 (CTest's skip) without CUDA 13.0, ninja or a Python 3.12."""
import glob
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CUDA = "/usr/local/cuda-13.0"
FAILS = []

PYEXT = r"""#define PY_SSIZE_T_CLEAN
#include <Python.h>
static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&m); }
"""

WRAP = r"""#!/usr/bin/env python3
import json, os, sys
name = os.path.basename(sys.argv[0])
with open(os.environ["PROPERTY_ARGLOG"], "a") as f:
    f.write(json.dumps([name] + sys.argv[1:]) + "\n")
real = {"cc": "/usr/bin/gcc", "c++": "/usr/bin/g++", "gcc": "/usr/bin/gcc",
        "g++": "/usr/bin/g++"}.get(name)
if name == "nvcc":
    # The host compiler nvcc runs is this wrapper too (as g++). argv[0] is the full path:
    # nvcc finds its own directory (nvcc.profile, cicc) from argv[0], through PATH when bare.
    nvcc = os.environ["PROPERTY_NVCC"]
    os.execv(nvcc, [nvcc, "-ccbin", os.path.join(os.environ["PROPERTY_WRAP"], "g++")] + sys.argv[1:])
os.execv(real, [real] + sys.argv[1:])
"""


def check(what, ok, detail=""):
    if not ok:
        print("FAIL " + what + "\n  " + str(detail)[-3000:])
        FAILS.append(what)
    return ok


def toml_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif o < 0x20 or o == 0x7F:
            out.append("\\u%04X" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


class Gen:
    def __init__(self, rnd, canary):
        self.rnd = rnd
        self.pieces = (list("abcXYZ019_-./=+@%^") +
                       [" ", "$", ":", ",", ";", "|", "&", "(", ")", "<", ">", "#", "*", "?",
                        "'", '"', "\\", "`", "\n", "\r", "\t", "\x01", "\x7f", "é", "日", "ß",
                        "$$", "${x}", "$out", "$:", "$ ", "$\n",
                        f"$(touch {canary})", f"`touch {canary}`", f"; touch {canary};",
                        f"' ; touch {canary} '", f'" ; touch {canary} "',
                        f"\n  command = touch {canary}\n", f"\nbuild {canary}: phony\n",
                        "\nrule x\n", "\ndefault x\n", "\\$", "\\\"", "','", "-Xcompiler="])

    def value(self):
        n = self.rnd.choice([0, 1, 2, 3, 5, 8])
        return "".join(self.rnd.choice(self.pieces) for _ in range(n))

    def name(self):
        # A file or directory name: at most 200 bytes, so that it and ".cu" fit the file
        # system's 255 (eight payload pieces can exceed it, and the test could not write it).
        while True:
            v = "s" + self.value().replace("/", "_").replace("\0", "_")
            if len(v.encode()) <= 200:
                return v  # never '.', '..' or hidden; a glob's '*' must match it


def write_project(proj, fields, files, toolkit=None, python="3.12"):
    """fields: key -> (section, toml key, value); returns {field key: line number}."""
    lines = ['[project]', 'name = "prop"', 'version = "1.0"', 'requires-python = ">=3.10"', '',
             '[tool.cuwheel]', 'packages = ["pkg"]']
    where = {}

    def put(key, text):
        where[key] = len(lines) + 1
        lines.append(text)
    if "dist" in fields:
        put("dist", f"dist-dir = {toml_str(fields['dist'])}")
    lines += ['', '[tool.cuwheel.kernels]']
    where["ksources"] = len(lines) + 1
    lines.append('sources = ["kern/*.cu", "kern/*.c"]')
    lines.append('archs = "7.5"')
    for k, tk in (("kdef", "defines"), ("khost", "host-flags"), ("knvcc", "nvcc-flags"),
                  ("kinc", "include-dirs")):
        if k in fields:
            put(k, f"{tk} = [{toml_str(fields[k])}]")
    lines += ['', '[tool.cuwheel.extension]', 'module = "pkg._C"']
    where["xsources"] = len(lines) + 1
    lines.append('sources = ["src/*.c"]')
    for k, tk in (("xdef", "defines"), ("xcflags", "cflags"), ("xld", "ldflags"),
                  ("xinc", "include-dirs")):
        if k in fields:
            put(k, f"{tk} = [{toml_str(fields[k])}]")
    lines += ['', '[tool.cuwheel.matrix]', f'python = ["{python}"]', 'cuda = ["13.0"]']
    if toolkit:
        lines += ['', '[tool.cuwheel.toolkits]', f'"13.0" = "{toolkit}"']
    if os.path.exists(proj):
        shutil.rmtree(proj)
    for d in ("kern", "src", "pkg", "inc"):
        os.makedirs(os.path.join(proj, d))
    with open(os.path.join(proj, "pkg", "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(proj, "kern", "k.cu"), "w") as f:
        f.write("__global__ void k0(float *x) { x[0] = 1.0f; }\n")
    with open(os.path.join(proj, "kern", "h.c"), "w") as f:
        f.write("int h0;\n")
    with open(os.path.join(proj, "src", "ext.c"), "w") as f:
        f.write(PYEXT)
    for rel, text in files.items():
        with open(os.path.join(proj, rel), "w") as f:
            f.write(text)
    for k in ("kinc", "xinc"):
        if k in fields:
            os.makedirs(os.path.join(proj, fields[k]), exist_ok=True)
    with open(os.path.join(proj, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return where


def make_fields(g):
    fields = {
        "kdef": "PK=" + g.value(),
        "khost": "-DPH=" + g.value(),
        "knvcc": "-DPN=" + g.value(),
        "kinc": "inc/" + g.name(),
        "xdef": "PE=" + g.value(),
        "xcflags": "-DPC=" + g.value(),
        "xld": "-L/nonexistent/" + g.value(),
        "xinc": "inc/" + g.name(),
        "dist": "d" + g.name(),
    }
    if fields["kinc"] == fields["xinc"]:
        fields["xinc"] += "2"
    files = {
        "kern/" + g.name() + ".cu": "__global__ void k1(float *x) { x[0] = 2.0f; }\n",
        "src/" + g.name() + ".c": "int x1;\n",
    }
    if len(files) < 2:
        files = {"kern/" + g.name() + "a.cu": "__global__ void k1(float *x) {}\n"}
    return fields, files


def shown(s):
    """As cuwheel shows a name in a one-line message (config_shown)."""
    out = []
    for c in s:
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return "".join(out)


ERR = re.compile(r"^cuwheel: pyproject\.toml:(\d+):(\d+): error: (.*)$")


def run(args, proj, env):
    p = subprocess.run([CUWHEEL] + args, cwd=proj, env=env, capture_output=True, timeout=900)
    err = p.stderr.decode("utf-8", "replace")
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        check(f"no sanitizer report ({bad})", bad not in err, err[-3000:])
    return p.returncode, p.stdout.decode("utf-8", "replace"), err


def refusals(label, proj, env, fields, files, toolkit):
    """Runs the dry run with every value; returns (refused field keys, refused files)."""
    where = write_project(proj, fields, files, toolkit)
    rc, out, err = run(["build", "--dry-run"], proj, env)
    bad_fields, bad_files = set(), set()
    if rc == 0:
        return bad_fields, bad_files, where
    check(f"{label}: a refusal exits 1", rc == 1, err)
    by_line = {v: k for k, v in where.items()}
    for line in err.splitlines():
        if "error:" not in line:
            continue
        m = ERR.match(line)
        if not check(f"{label}: every error is located (pyproject.toml:LINE:COL)", m, line):
            continue
        key = by_line.get(int(m.group(1)))
        if key in ("ksources", "xsources"):
            for rel in files:
                if "'" + shown(rel) + "'" in m.group(3):
                    bad_files.add(rel)
        elif key:
            bad_fields.add(key)
        else:
            check(f"{label}: an error on a line that holds no test value", False, line)
    check(f"{label}: a failing config names what it refused", bad_fields or bad_files, err)
    return bad_fields, bad_files, where


RULES = {"nvcc", "cc", "ar", "link", "cuwheel"}
TOP = ("ninja_required_version = ", "launcher =", "nvcc_env =", "nvcc_launcher = ", "cuwheel = ",
       "project = ")
INNER = {"command", "depfile", "deps", "description", "cuda", "nvcc", "flags", "what", "cc",
         "ld", "ldflags", "args", "desc"}


def check_ninja_file(label, path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    rules, defaults = set(), 0
    for line in text.split("\n"):
        if not line or line.startswith("#") or line.startswith("build "):
            continue
        if line.startswith("rule "):
            rules.add(line[5:])
        elif line.startswith("default "):
            defaults += 1
            check(f"{label}: the only default is 'all'", line == "default all", line)
        elif line.startswith("  "):
            key = line[2:].split(" =", 1)[0]
            check(f"{label}: build.ninja sets only cuwheel's variables", key in INNER, line)
        else:
            check(f"{label}: build.ninja has only cuwheel's top-level lines",
                  line.startswith(TOP), line)
    check(f"{label}: build.ninja has exactly cuwheel's five rules", rules == RULES, rules)
    check(f"{label}: build.ninja has one default", defaults == 1, defaults)


def has_arg(argvs, want):
    return any(want in a for a in argvs)


def check_dry(label, proj, out, fields, accepted):
    """Every accepted value appears as one argument, verbatim, in the commands ninja runs."""
    cmds = []
    for line in out.splitlines():
        if line.startswith("cuwheel:"):
            continue
        try:
            argv = shlex.split(line)
            if argv[1:3] == ["internal", "nvcc-overlap"]:  # nvcc's steps side by side
                argv = argv[argv.index("--") + 1:]
            cmds.append(argv)
        except ValueError as e:
            check(f"{label}: every command is valid sh", False, f"{e}: {line!r}")
    nvcc = [c for c in cmds if any(x.endswith("/nvcc") for x in c[:2]) and "-c" in c]
    cc_kernel = [c for c in cmds if "-c" in c and c not in nvcc and
                 c[c.index("-c") + 1].endswith("kern/h.c")]
    cc_ext = [c for c in cmds if "-c" in c and any("/cells/" in x or x.startswith("cells/")
                                                   for x in c) and c not in nvcc]
    link = [c for c in cmds if "-shared" in c]
    finish = [c for c in cmds if "finish" in c]
    check(f"{label}: the dry run lists nvcc, cc, link and finish commands",
          nvcc and cc_kernel and cc_ext and link and finish, out[:2000])
    f = {k: fields.get(k, "") for k in ("kdef", "khost", "knvcc", "xdef", "xcflags", "xld")}
    exp = {
        "kdef": [(nvcc, "-D" + f["kdef"]), (cc_kernel, "-D" + f["kdef"])],
        "khost": [(cc_kernel, f["khost"])],
        "knvcc": [(nvcc, f["knvcc"])],
        "xdef": [(cc_ext, "-D" + f["xdef"])],
        "xcflags": [(cc_ext, f["xcflags"])],
        "xld": [(link, f["xld"])],
    }
    for key, wants in exp.items():
        if key not in accepted:
            continue
        for group, want in wants:
            for c in group:
                check(f"{label}: {key} value reaches the command verbatim ({want!r})", want in c,
                      c)
    for key, group in (("kinc", cc_kernel + nvcc), ("xinc", cc_ext)):
        if key in accepted:
            for c in group:
                check(f"{label}: {key} reaches the command as one -I argument",
                      any(a.startswith("-I") and a.endswith("/" + fields[key]) for a in c), c)
    if "dist" in accepted:
        for c in finish:
            i = c.index("--dist")
            check(f"{label}: dist-dir reaches cuwheel verbatim",
                  c[i + 1] == os.path.join(os.path.realpath(proj), fields["dist"]), c[i + 1])


def check_real(label, log, fields, accepted):
    calls = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            calls.append(json.loads(line))
    host = [c for c in calls if c[0] == "g++" and "-E" in c and "-D__CUDACC__" in c]
    nvcc = [c for c in calls if c[0] == "nvcc" and "-c" in c]
    check(f"{label}: nvcc ran its host compiler through the wrapper", host and nvcc, calls[:5])

    def joined(c):
        # nvcc passes a define as "-D" "NAME=VALUE"; gcc reads both forms alike.
        out = list(c)
        for i in range(len(c) - 1):
            if c[i] == "-D":
                out.append("-D" + c[i + 1])
        return out
    for key, want in (("kdef", "-D" + fields.get("kdef", "")), ("khost", fields.get("khost"))):
        if key in accepted:
            for c in host:
                check(f"{label}: {key} reaches the compiler nvcc runs verbatim ({want!r})",
                      want in joined(c), c)
    if "knvcc" in accepted:
        for c in nvcc:
            check(f"{label}: knvcc reaches nvcc verbatim", fields["knvcc"] in c, c)
    if "kinc" in accepted:
        for c in host:
            check(f"{label}: kinc reaches the compiler nvcc runs as one -I argument",
                  any(a.startswith("-I") and a.endswith("/" + fields["kinc"]) for a in c), c)


def main():
    nvcc = os.path.join(CUDA, "bin", "nvcc")
    pys = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12.*/bin/python3")))
    if not os.path.exists(nvcc) or not shutil.which("ninja") or not (pys or shutil.which(
            "python3.12")):
        print("skipped: needs CUDA 13.0 at /usr/local/cuda-13.0, ninja and a Python 3.12")
        return 77
    seed = int(os.environ.get("PROPERTY_SEED", random.randrange(1 << 30)))
    n_dry = int(os.environ.get("PROPERTY_DRY", "150"))
    n_build = int(os.environ.get("PROPERTY_BUILDS", "3"))
    print(f"seed {seed} (PROPERTY_SEED={seed} repeats this run)")
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="cuwheel-property-") as tmp:
        canary = os.path.join(tmp, "PWNED")
        g = Gen(rnd, canary)
        wrap = os.path.join(tmp, "wrap")
        os.makedirs(wrap)
        with open(os.path.join(wrap, "wrapper.py"), "w") as f:
            f.write(WRAP)
        os.chmod(os.path.join(wrap, "wrapper.py"), 0o755)
        for n in ("cc", "c++", "g++", "gcc", "nvcc"):
            os.symlink("wrapper.py", os.path.join(wrap, n))
        fake = os.path.join(tmp, "cuda")
        os.makedirs(os.path.join(fake, "bin"))
        for e in os.listdir(CUDA):
            if e != "bin":
                os.symlink(os.path.join(CUDA, e), os.path.join(fake, e))
        for e in os.listdir(os.path.join(CUDA, "bin")):
            if e != "nvcc":
                os.symlink(os.path.join(CUDA, "bin", e), os.path.join(fake, "bin", e))
        os.symlink(os.path.join(wrap, "nvcc"), os.path.join(fake, "bin", "nvcc"))
        log = os.path.join(tmp, "argv.jsonl")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CUWHEEL_", "NVCC_"))}
        env.update(NO_COLOR="1", CUWHEEL_CCACHE="off", CC=os.path.join(wrap, "cc"),
                   CXX=os.path.join(wrap, "c++"), PROPERTY_ARGLOG=log, PROPERTY_NVCC=nvcc, PROPERTY_WRAP=wrap,
                   CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
        proj = os.path.join(tmp, "p")
        stats = {"refused": 0, "accepted": 0, "files_refused": 0, "files_accepted": 0}
        # First the names the issue reported (nvcc said "too many arguments"), built for real,
        # with values that must pass; then the random ones.
        # khost: nvcc pastes -Xcompiler values into a shell unquoted; every sh metacharacter
        # once broke the host command ("-DPH=;" gave "sh: 1: -O3: not found").
        named = ({"kdef": "X=a b", "khost": "-DW=c;d|e&(f)<g>*?[h]#~{i}!", "knvcc": "-Xcompiler=-Wall,-Wextra",
                  "kinc": "inc/i n:c é", "xdef": "Q=$(not run)", "xcflags": "-DR='`x`'",
                  "xld": "-L/nonexistent/a b", "xinc": "inc/x:y", "dist": "d i$t"},
                 {"kern/a$b.cu": "__global__ void ka(float *x) { x[0] = 3.0f; }\n",
                  "kern/c d.cu": "__global__ void kc(float *x) { x[0] = 4.0f; }\n",
                  "kern/e|f,g.cu": "__global__ void ke(float *x) { x[0] = 5.0f; }\n",
                  "src/g h$i|j.c": "int gh;\n"})
        for it in range(-1, n_dry + n_build):
            real = it >= n_dry or it < 0
            label = "named" if it < 0 else f"{'build' if real else 'dry'} {it}"
            fields, files = named if it < 0 else make_fields(g)
            if it < 0:
                n_named_before = len(FAILS)
            bad, bad_files, _ = refusals(label, proj, env, fields, files, fake)
            accepted = {k for k in fields if k not in bad}
            keep = {k: v for k, v in fields.items() if k in accepted}
            kfiles = {k: v for k, v in files.items() if k not in bad_files}
            stats["refused"] += len(bad)
            stats["accepted"] += len(accepted)
            stats["files_refused"] += len(bad_files)
            stats["files_accepted"] += len(kfiles)
            write_project(proj, keep, kfiles, fake)
            rc, out, err = run(["build", "--dry-run"], proj, env)
            if not check(f"{label}: the accepted values plan and generate", rc == 0,
                         err + repr(keep) + repr(list(kfiles))):
                continue
            check_ninja_file(label, os.path.join(proj, "build", "cuwheel", "build.ninja"))
            check_dry(label, proj, out, keep, accepted)
            if real:
                if os.path.exists(log):
                    os.remove(log)
                rc, out, err = run(["build", "--no-test", "-j", "2"], proj, env)
                check(f"{label}: the build with every accepted value succeeds", rc == 0,
                      (out + err)[-4000:] + repr(keep) + repr(list(kfiles)))
                if rc == 0:
                    check_real(label, log, keep, accepted)
                    whl = glob.glob(os.path.join(proj, keep.get("dist", "dist"), "*.whl"))
                    check(f"{label}: one wheel in dist-dir", len(whl) == 1, whl)
            check(f"{label}: no payload ran (the canary does not exist)",
                  not os.path.exists(canary), canary)
            if it < 0:
                check("named: every value and name passed (none refused)",
                      not bad and not bad_files and len(FAILS) == n_named_before,
                      (bad, bad_files))
            if len(FAILS) > 20:
                break
    print(f"{n_dry} dry runs, {n_build} real builds: {stats['refused']} values refused with a "
          f"location, {stats['accepted']} passed verbatim; source names: "
          f"{stats['files_refused']} refused, {stats['files_accepted']} built")
    if FAILS:
        print(f"{len(FAILS)} checks failed (seed {seed})")
        return 1
    print("every value was refused with a location or reached the compiler verbatim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
