#!/usr/bin/env python3
"""test_write_limits: a write past `ulimit -f` (SIGXFSZ) is a located write error, not a silent
death, and leaves no temp file or dir behind (issue 19, class 4). Table-driven over the four
commands that write big files: `retag -o`, `ci github -o`, `index --copy --out`, `pack -o`. Each
runs with RLIMIT_FSIZE below its output's size and must exit 1 with "File too large" and the
path, leaving no `.X.whl.tmp.*`, `.wf.yml.tmp.*` or `.site.new.*` behind. Also: SIGTERM to an
`index --copy` in progress removes its `.site.new.*` directory."""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()), "bench"))
import bigwheel  # noqa: E402

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", os.path.join(ROOT, "build/ci/cuwheel")))
FAILS = []


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name, flush=True)
    if not ok:
        FAILS.append(name)
        print("   " + detail[-1500:].replace("\n", "\n   "))


def leftovers(d):
    out = []
    for dp, dns, fs in os.walk(d):
        out += [os.path.join(dp, n) for n in fs + dns if ".tmp." in n or ".site.new." in n]
    return out


def limited(limit):
    def f():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return f


def main():
    with tempfile.TemporaryDirectory(prefix="cuwheel-limits-") as tmp:
        src = os.path.join(tmp, "wheels")
        os.makedirs(src)
        whl = bigwheel.make_wheel(src, 3000)  # ~400 kB
        proj = os.path.join(tmp, "proj")
        os.makedirs(os.path.join(proj, "demo"))
        os.makedirs(os.path.join(proj, "src"))
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write('[project]\nname = "demo-pkg"\nversion = "1.0"\n[tool.cuwheel]\n'
                    'packages = ["demo"]\n[tool.cuwheel.extension]\nmodule = "demo._C"\n'
                    'sources = ["src/ext.c"]\n[tool.cuwheel.matrix]\ncuda = ["13.0"]\n')
        for n in ("demo/__init__.py", "src/ext.c"):
            open(os.path.join(proj, n), "w").close()
        stage = os.path.join(tmp, "stage", "demo")
        os.makedirs(stage)
        with open(os.path.join(stage, "blob.bin"), "wb") as f:
            f.write(os.urandom(300_000))
        # (command, args, limit in bytes, where the output goes)
        cases = [
            ("retag -o", ["retag", whl, "--local", "cu130", "-o", "out"], 100_000, "out"),
            ("ci github -o", ["-C", proj, "ci", "github", "-o", "wf/wheels.yml", "--cuwheel",
                              "git+https://github.com/cuwheel/cuwheel@d85fa5402764b63a9f233b6a820d8be0d5ea43b9"], 2_000, "wf"),
            ("index --copy --out", ["index", src, "--copy", "--out", "site"], 100_000, "."),
            ("pack -o", ["-C", proj, "pack", os.path.dirname(stage), "--tag", "py3-none-any",
                         "-o", "out"], 100_000, "out"),
        ]
        for i, (name, args, limit, where) in enumerate(cases):
            w = os.path.join(tmp, f"c{i}")
            os.makedirs(os.path.join(w, "out"))
            os.makedirs(os.path.join(w, "wf"))
            p = subprocess.run([CUWHEEL] + args, cwd=w, capture_output=True, text=True,
                               preexec_fn=limited(limit), timeout=300)
            check(f"{name} past the file size limit: exit 1 (not killed by SIGXFSZ)",
                  p.returncode == 1, f"exit {p.returncode}\n{p.stderr}")
            check(f"{name}: the error says 'File too large' and names the file",
                  "File too large" in p.stderr and "error:" in p.stderr, p.stderr)
            left = leftovers(w)
            check(f"{name}: no temp file or dir left", not left, str(left))
            out = os.path.join(w, where)
            made = [n for n in os.listdir(out) if n.endswith((".whl", ".yml"))] + \
                [n for n in os.listdir(w) if n == "site"]
            check(f"{name}: no output written", not made, str(made))
        # A signal while index writes its new tree: the tree goes with it.
        big = os.path.join(tmp, "many")
        os.makedirs(big)
        with open(os.path.join(stage, "blob.bin"), "wb") as f:
            f.write(os.urandom(8 << 20))
        subprocess.run([CUWHEEL, "-C", proj, "pack", os.path.dirname(stage), "--tag",
                        "py3-none-any", "-o", os.path.join(tmp, "one")], check=True,
                       capture_output=True)
        one = os.path.join(tmp, "one", "demo_pkg-1.0-py3-none-any.whl")
        for k in range(16):  # 16 variants of an 8 MB wheel: a copy that takes a moment
            subprocess.run([CUWHEEL, "retag", one, "--local", f"cu{k}", "-o", big], check=True,
                           capture_output=True)
        w = os.path.join(tmp, "sig")
        os.makedirs(w)
        seen = False
        for attempt in range(20):
            p = subprocess.Popen([CUWHEEL, "index", big, "--copy", "--out", "site"], cwd=w,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            t0 = time.time()
            while p.poll() is None and not [n for n in os.listdir(w) if ".site.new." in n]:
                if time.time() - t0 > 30:
                    break
                time.sleep(0.002)
            if p.poll() is None:
                seen = True
                p.send_signal(signal.SIGTERM)
                p.wait(timeout=60)
                break
            p.wait()
            subprocess.run(["rm", "-rf", os.path.join(w, "site")])
        check("SIGTERM caught index --copy while it wrote its new tree", seen)
        if seen:
            left = leftovers(w)
            check("SIGTERM to index --copy: its .site.new.* dir is removed", not left,
                  str(left))
            check("SIGTERM to index --copy: cuwheel died of SIGTERM",
                  p.returncode == -signal.SIGTERM, str(p.returncode))
    print(f"test_write_limits: {len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
