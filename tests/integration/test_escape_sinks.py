#!/usr/bin/env python3
"""test_escape_sinks.py: untrusted text comes out inert on every sink (issue 25, class 3).

Hostile strings: an ANSI colour (ESC[31m), an OSC 8 hyperlink, a bare CR, a forged GitHub
annotation on its own line ("\\n::error title=x::forged"), a C1 CSI (U+009B) and "##[error]".
  - terminal (diagnostics): an sdist whose member name, or symlink target, is each hostile
    string: `cuwheel plan` refuses it, and its stderr holds no escape byte, no CR, and no line
    starting with "::";
  - terminal (audit): a wheel whose member names are the hostile strings: `cuwheel audit`
    prints them escaped;
  - terminal (pack and retag): `cuwheel pack -o DIR` and `cuwheel retag -o DIR`, with DIR named
    by each hostile string, print the path of the wheel written escaped;
  - terminal (paths cuwheel names): `toolkit list` and `python list` with $CUWHEEL_CACHE_DIR,
    their `--available --lock FILE`, and `index -o SITE`, each named by a hostile string;
  - JSON (plan --json): a config file named with U+009B and DEL comes out as \\u escapes, and
    json.loads gives the name back;
  - probe: an interpreter of the pythons table that prints the hostile strings and fails:
    `cuwheel plan` names it with its output escaped;
  - log and workflow commands: a build whose C compiler (a $CC wrapper) prints the hostile
    strings and fails, in plain progress and under GITHUB_ACTIONS=true: the compiler's output
    is escaped in the log, no forged "::error title=x::" line starts a line, and cuwheel's own
    annotations carry the text %-encoded; a compiler that prints 20 MB has its output cut at
    1 MiB with a note (issue 25, class 9). This part needs CUDA 13.0 (skipped without it).
Every check is on raw bytes."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", os.path.join(ROOT, "build/ci/cuwheel")))
FIXTURE = os.path.join(ROOT, "tests/cases/sdist/_fixture")
sys.path.insert(0, FIXTURE)
import sdistgen  # noqa: E402

FAILS = []
HOSTILE = [
    "\x1b[31mred\x1b[0m",
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "ok\rpkg",
    "x\n::error title=x::forged",
    "\u009b31m",
    "##[error]forged",
]
OWN = (b"::group::", b"::endgroup::", b"::error file=", b"::error title=")


def check(what, ok, detail=""):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}: {detail!r}"[:3000], flush=True)


def inert(out, own_commands=False):
    """Why out (bytes) is not inert, or None."""
    if b"\x1b" in out:
        return "an ESC byte"
    if b"\r" in out:
        return "a CR"
    if b"\xc2\x9b" in out or re.search(rb"(?<![\xc0-\xff])[\x80-\x9f]", out):
        return "a C1 control"
    if b"##[" in out:
        return "a '##[' marker"
    for line in out.split(b"\n"):
        s = line.lstrip(b" \t")
        if s.startswith(b"::") and not (own_commands and s.startswith(OWN)):
            return f"a line starting '::': {line[:80]!r}"
        if b"::error title=x::forged" in line and s.startswith(b"::error title=x"):
            return f"the forged annotation: {line[:80]!r}"
    return None


def run(args, cwd, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("CUWHEEL_", "GITHUB_"))}
    e.update(NO_COLOR="1")
    e.update(env or {})
    p = subprocess.run([CUWHEEL, *args], cwd=cwd, env=e, capture_output=True, timeout=900)
    for bad in (b"AddressSanitizer", b"LeakSanitizer", b"runtime error:"):
        check(f"no sanitizer report from {args[0]}", bad not in p.stderr, p.stderr[-1500:])
    return p.returncode, p.stdout, p.stderr


def project(tmp, name):
    d = os.path.join(tmp, name)
    shutil.copytree(FIXTURE, d)
    return d


def sdist_sink(tmp):
    n = 0
    for i, h in enumerate(HOSTILE):
        for kind in ("name", "link"):
            d = project(tmp, f"sdist-{kind}-{i}")
            if kind == "name":
                raw = sdistgen.good_members() + sdistgen.member("demo-1.0/" + h, "x")
            else:
                raw = sdistgen.good_members() + sdistgen.member(
                    "demo-1.0/pkg/link.py", type_=b"2", link="../../" + h)
            sdistgen.write(os.path.join(d, "demo-1.0.tar.gz"), raw)
            rc, out, err = run(["plan", "demo-1.0.tar.gz", "--config", "cfg.toml"], d)
            label = f"sdist {kind} {h!r}"
            if kind == "link" or re.search(r"[\x00-\x1f]", h):  # printable names may pass
                check(f"{label}: refused (exit 1)", rc == 1, err)
            why = inert(out + err)
            check(f"{label}: output inert", why is None, f"{why}: {err[-600:]}")
            n += 1
    print(f"terminal (diagnostics): {n} hostile sdists checked", flush=True)


def audit_sink(tmp):
    out_dir = os.path.join(tmp, "wheels")
    os.makedirs(out_dir)
    path = os.path.join(out_dir, "demo-1.0-py3-none-any.whl")
    files = {f"demo/{h}.py": b"" for h in HOSTILE}
    files["demo/__init__.py"] = b""
    # A wheel whose RECORD lists the hostile members, written member by member.
    import base64
    import hashlib
    di = "demo-1.0.dist-info"
    files[f"{di}/METADATA"] = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
    files[f"{di}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\n"
                            b"Tag: py3-none-any\n")
    rec = ""
    for n, data in files.items():
        dg = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rec += f"{n},sha256={dg},{len(data)}\n"
    files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
    with zipfile.ZipFile(path, "w") as z:
        for n, data in files.items():
            z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), data)
    rc, out, err = run(["audit", path], tmp)
    why = inert(out + err)
    check("audit of hostile member names: output inert", why is None, f"{why}: {out + err!r}")
    check("audit names the hostile members escaped", b"\\x1b[31mred" in out + err,
          (out + err)[-1500:])
    print(f"terminal (audit): exit {rc}, checked", flush=True)


def pack_retag_sink(tmp):
    proj, stage = os.path.join(tmp, "packproj"), os.path.join(tmp, "stage")
    os.makedirs(os.path.join(stage, "demo"))
    os.makedirs(os.path.join(proj, "demo"))
    os.makedirs(os.path.join(proj, "src"))
    with open(os.path.join(proj, "src", "ext.c"), "w") as f:
        f.write("int demo;\n")
    with open(os.path.join(stage, "demo", "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write('[project]\nname = "demo"\nversion = "1.0"\n[tool.cuwheel]\npackages = ["demo"]\n'
                '[tool.cuwheel.extension]\nmodule = "demo._C"\nsources = ["src/ext.c"]\n')
    for i, h in enumerate(HOSTILE):
        out = os.path.join(tmp, f"pack-{i}-" + h.replace("/", "_"))
        rc, o, err = run(["-C", proj, "pack", stage, "--tag", "py3-none-any", "--purelib",
                          "-o", out], tmp)
        check(f"pack -o {h!r}: the wheel is written", rc == 0, err)
        why = inert(o + err)
        check(f"pack -o {h!r}: output inert", why is None, f"{why}: {o + err!r}")
        whl = os.path.join(out, "demo-1.0-py3-none-any.whl")
        rout = os.path.join(tmp, f"retag-{i}-" + h.replace("/", "_"))
        rc, o, err = run(["retag", whl, "--local", "cu130", "-o", rout], tmp)
        check(f"retag -o {h!r}: the wheel is written", rc == 0, err)
        why = inert(o + err)
        check(f"retag -o {h!r}: output inert", why is None, f"{why}: {o + err!r}")
    rc, o, err = run(["-C", proj, "pack", stage, "--tag", "py3-none-any", "--purelib", "-o",
                      os.path.join(tmp, "pack-0-" + HOSTILE[0])], tmp)
    check("pack names the directory escaped", b"/pack-0-\\x1b[31mred\\x1b[0m/demo-1.0" in o, o)
    print(f"terminal (pack and retag): {len(HOSTILE)} hostile output directories checked",
          flush=True)


def paths_sink(tmp):
    """Paths from the environment or the command line that cuwheel repeats on stdout."""
    n = 0
    for i, h in enumerate(HOSTILE):
        safe = h.replace("/", "_")
        cache = os.path.join(tmp, f"cache-{i}-{safe}")
        runs = []
        for tool in ("toolkit", "python"):
            runs.append(([tool, "list"], dict(CUWHEEL_CACHE_DIR=cache)))
            lock = os.path.join(tmp, f"{tool}-{i}-{safe}.lock.json")
            shutil.copy(os.path.join(ROOT, "toolchain", f"{tool}s.lock.json"), lock)
            runs.append(([tool, "list", "--available", "--lock", lock], {}))
        dist = os.path.join(tmp, "pack-0-" + HOSTILE[0])  # pack_retag_sink's wheel
        runs.append((["index", dist, "--out", os.path.join(tmp, f"site-{i}-{safe}")], {}))
        for args, env in runs:
            rc, out, err = run(args, tmp, env)
            check(f"{' '.join(args[:2])} {h!r}: exit 0", rc == 0, err)
            why = inert(out + err)
            check(f"{' '.join(args[:2])} {h!r}: output inert", why is None,
                  f"{why}: {(out + err)[:600]!r}")
            n += 1
    print(f"terminal (paths cuwheel names): {n} runs checked", flush=True)


def json_sink(tmp):
    d = project(tmp, "json")
    sdistgen.write(os.path.join(d, "demo-1.0.tar.gz"), sdistgen.good_members())
    name = "cfg\u009b31m\x7f.toml"
    shutil.copy(os.path.join(d, "cfg.toml"), os.path.join(d, name))
    rc, out, err = run(["plan", "--json", "demo-1.0.tar.gz", "--config", name], d)
    check("plan --json with a C1 config name: exit 0", rc == 0, err)
    why = inert(out + err)
    check("plan --json: output inert (DEL and C1 as \\u escapes)",
          why is None and b"\x7f" not in out, f"{why}: {out[:600]!r}")
    check("plan --json writes U+009B and DEL as \\u009B, \\u007F",
          b"cfg\\u009B31m\\u007F.toml" in out, out[:600])
    try:
        got = json.loads(out)["config"]["config_file"]
    except (ValueError, KeyError) as e:
        got = repr(e)
    check("plan --json: the name reads back", got == os.path.join(d, name), got)
    print(f"JSON (plan --json): exit {rc}, checked", flush=True)


def probe_sink(tmp):
    d = project(tmp, "probe")
    py = os.path.join(tmp, "hostile-python")
    with open(py, "w") as f:
        f.write("#!/bin/sh\nprintf '%s\\n' " + " ".join(
            "'" + h.replace("'", "'\\''") + "'" for h in HOSTILE) + "\nexit 1\n")
    os.chmod(py, 0o755)
    with open(os.path.join(d, "cfg.toml"), "a") as f:
        f.write(f'\n[tool.cuwheel.pythons]\n"3.12" = "{py}"\n')
    sdistgen.write(os.path.join(d, "demo-1.0.tar.gz"), sdistgen.good_members())
    rc, out, err = run(["plan", "demo-1.0.tar.gz", "--config", "cfg.toml"], d)
    why = inert(out + err)
    check("a hostile interpreter's output: plan output inert", why is None,
          f"{why}: {err[-1500:]!r}")
    check("the interpreter is named with its output escaped",
          py.encode() in err and b"\\x1b[31mred" in err, err[-1500:])
    print(f"probe: exit {rc}, checked", flush=True)


def build_sink(tmp):
    if not os.path.exists("/usr/local/cuda-13.0/bin/nvcc"):
        print("note: the log and workflow-command part needs CUDA 13.0 (skipped)")
        return False
    d = os.path.join(tmp, "build")
    os.makedirs(d)
    for x in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
        s = os.path.join(ROOT, "examples", "tinyraster", x)
        (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(d, x))
    cc = os.path.join(tmp, "hostile-cc")
    with open(cc, "w") as f:
        f.write("#!/bin/sh\nprintf '%s\\n' " + " ".join(
            "'" + h.replace("'", "'\\''") + "'" for h in HOSTILE) + "\nexit 1\n")
    os.chmod(cc, 0o755)
    env = dict(CC=cc, CUWHEEL_MATRIX_CUDA="13.0", CUWHEEL_ARCHS="7.5",
               CUWHEEL_MATRIX_PYTHON="3.12", CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
    for gha in (False, True):
        e = dict(env)
        if gha:
            e.update(GITHUB_ACTIONS="true", CI="true")
        shutil.rmtree(os.path.join(d, "build"), ignore_errors=True)
        rc, out, err = run(["build", "--no-test", "-j", "2", "--progress", "plain"], d, e)
        label = "GitHub Actions" if gha else "plain"
        check(f"{label}: the build fails (exit 1)", rc == 1, err[-1500:])
        why = inert(out + err, own_commands=gha)
        check(f"{label}: output inert", why is None, f"{why}: {(out + err)[-2500:]!r}")
        check(f"{label}: the compiler's words are shown escaped (OSC 8 as \\x1b])",
              b"\\x1b]8;;https://evil.example/" in out + err, (out + err)[-2500:])
        if gha:
            ann = [l for l in out.split(b"\n") if l.startswith(b"::error")]
            check("GitHub Actions: an annotation for the failed step", ann, out[-2500:])
        print(f"log ({label}): exit {rc}, checked", flush=True)
    # A compiler that floods (20 MB on one failed step): the step's first MiB is shown, with a
    # line saying how much was left out, so cuwheel's output (and memory) stays bounded.
    with open(cc, "w") as f:
        f.write("#!/bin/sh\nhead -c 20000000 /dev/zero | tr '\\0' 'y' | fold -w 100\nexit 1\n")
    shutil.rmtree(os.path.join(d, "build"), ignore_errors=True)
    rc, out, err = run(["build", "--no-test", "-j", "2", "--progress", "plain"], d, env)
    both = out + err
    check("flood: the build fails (exit 1)", rc == 1, err[-1500:])
    check("flood: the output is cut with a note", b"more bytes of this output left out" in both,
          both[-1500:])
    steps = both.count(b"more bytes of this output left out")
    check("flood: at most 1.2 MiB printed per failed step (1 MiB and its indent)",
          len(both) < steps * 1.2 * (1 << 20) + 65536, f"{len(both)} bytes, {steps} steps")
    print(f"log (flood): exit {rc}, {len(both)} bytes printed for {steps} failed steps of 20 MB "
          "each", flush=True)
    return True


def main():
    with tempfile.TemporaryDirectory(prefix="cuwheel-escape-") as tmp:
        sdist_sink(tmp)
        audit_sink(tmp)
        pack_retag_sink(tmp)
        paths_sink(tmp)
        json_sink(tmp)
        probe_sink(tmp)
        built = build_sink(tmp)
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    if not built:
        return testskip.skip_code("the log sink needs CUDA 13.0 (the other sinks passed)")
    print("every sink printed the hostile text inert")
    return 0


if __name__ == "__main__":
    sys.exit(main())
