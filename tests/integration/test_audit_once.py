"""Results once. A build audits each wheel once: `internal finish` keeps its audit result
(cells/<id>/audit.json), report.json carries it, and the report (report.html, `cuwheel report
--json`) is made from it without auditing again. Counted with CUWHEEL_AUDIT_TRACE (audit_wheel appends one
line per audit) over a real build of tinyraster (CUDA 13.0, Python 3.12, one GPU arch, a one-line
test command), a no-op rebuild and `cuwheel report`. Then no ninja step reads pyproject.toml:
with it moved away, `ninja -t clean` and `ninja` run every step again (compile, link, stage, pack,
audit, test) and succeed. Exits 77 (skipped) without a CUDA 13.0 toolkit or Python 3.12."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
failures = []


def check(cond, what, detail=""):
    print(f"{'ok' if cond else 'FAIL'}: {what}")
    if not cond:
        failures.append(what)
        if detail:
            print(detail, file=sys.stderr)
    return cond


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-audit-once-")
    try:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for name in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
            src = os.path.join(ROOT, "examples", "tinyraster", name)
            (shutil.copytree if os.path.isdir(src) else shutil.copy)(src,
                                                                    os.path.join(proj, name))
        trace = os.path.join(tmp, "audits.txt")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
        env.update({"CUWHEEL_MATRIX_CUDA": "13.0", "CUWHEEL_MATRIX_PYTHON": "3.12",
                    "CUWHEEL_ARCHS": "8.6", "CUWHEEL_AUDIT_TRACE": trace,
                    "CUWHEEL_TEST_REQUIRES": "",
                    "CUWHEEL_TEST_COMMAND": "python -c 'import tinyraster._C'"})

        def run(*args):
            return subprocess.run([CUWHEEL, *args], cwd=proj, env=env, capture_output=True,
                                  text=True)

        def audits():
            return open(trace).read().splitlines() if os.path.exists(trace) else []

        p = run("plan", "--json")
        if p.returncode not in (0, 3):
            print(p.stderr, file=sys.stderr)
            return 1
        cells = [c for c in json.loads(p.stdout)["matrix"]["cells"] if c["selected"]]
        if not cells or not all(c["buildable"] for c in cells):
            print("SKIP: needs a CUDA 13.0 toolkit and Python 3.12 here")
            return 77
        p = run("build", "--no-provision", "--progress", "plain")
        if not check(p.returncode == 0, "cuwheel build", p.stdout[-3000:] + p.stderr[-3000:]):
            return 1
        wheels = [f for f in os.listdir(os.path.join(proj, "dist")) if f.endswith(".whl")]
        check(len(wheels) == len(cells), f"{len(cells)} cells gave {len(wheels)} wheels")
        got = audits()
        check(len(got) == len(wheels),
              f"the build audited each of its {len(wheels)} wheels once ({len(got)} audits)",
              "\n".join(got))
        check(len(set(got)) == len(got), "no wheel audited twice", "\n".join(got))
        bdir = os.path.join(proj, "build", "cuwheel")
        report = json.load(open(os.path.join(bdir, "report.json")))
        for c in report["cells"]:
            a = c.get("audit") or {}
            check(c["result"] == "ok" and a.get("ok") is True and a.get("platform_tag"),
                  f"report.json carries {c['id']}'s audit ({a.get('platform_tag')})")
            kept = json.load(open(os.path.join(bdir, "cells", c["id"], "audit.json")))
            check(kept == a, f"{c['id']}: report.json's audit is the one finish kept")
        p = run("report", "--json")
        data = json.loads(p.stdout) if p.returncode == 0 else {"cells": [{"audit": None}]}
        check(all(c["audit"] and c["audit"]["platform_tag"] for c in data["cells"]
                  if c["result"] != "not selected"),
              "`cuwheel report --json` shows every cell's platform tag", p.stderr)
        html = open(os.path.join(bdir, "report.html")).read()
        tag = report["cells"][0]["audit"]["platform_tag"].split(".")[0]
        check(tag in html, f"report.html shows the platform tag {tag}")

        n = len(audits())
        p = run("build", "--no-provision", "--progress", "plain")
        check(p.returncode == 0 and len(audits()) == n, "a no-op rebuild audits nothing",
              p.stdout[-2000:] + p.stderr[-2000:])
        report = json.load(open(os.path.join(bdir, "report.json")))
        check(all(c["audit"] and c["audit"]["ok"] for c in report["cells"]),
              "the no-op rebuild's report.json still carries the audits")
        p = run("report")
        check(p.returncode == 0 and len(audits()) == n, "cuwheel report audits nothing",
              p.stdout + p.stderr)

        # The pack step's metadata (project.json) gives the wheel `cuwheel pack` gives from
        # pyproject.toml, byte for byte.
        for c in report["cells"]:
            cdir = os.path.join(bdir, "cells", c["id"])
            packed = [f for f in os.listdir(cdir) if f.endswith(".whl")]
            tag = "-".join(packed[0][:-4].split("-")[-3:])
            out = os.path.join(tmp, "pack-" + c["id"])
            p = run("pack", os.path.join(cdir, "stage"), "--tag", tag, "--local", "cu130",
                    "--quiet", "--compression", "6", "-o", out)
            same = p.returncode == 0 and open(os.path.join(out, packed[0]), "rb").read() == \
                open(os.path.join(cdir, packed[0]), "rb").read()
            check(same, f"{c['id']}: packed from project.json = packed from pyproject.toml",
                  p.stderr)
        before = {w: open(os.path.join(proj, "dist", w), "rb").read() for w in wheels}

        # No ninja step reads pyproject.toml: each reads the files the build wrote.
        os.rename(os.path.join(proj, "pyproject.toml"), os.path.join(tmp, "pyproject.away"))
        ninja = shutil.which("ninja") or shutil.which("ninja-build")
        subprocess.run([ninja, "-C", bdir, "-t", "clean"], env=env, capture_output=True)
        for w in os.listdir(os.path.join(proj, "dist")):
            os.unlink(os.path.join(proj, "dist", w))
        p = subprocess.run([ninja, "-C", bdir], env=env, capture_output=True, text=True)
        check(p.returncode == 0, "without pyproject.toml, ninja runs every step again",
              p.stdout[-4000:] + p.stderr[-2000:])
        again = [f for f in os.listdir(os.path.join(proj, "dist")) if f.endswith(".whl")]
        check(sorted(again) == sorted(wheels) and
              all(open(os.path.join(proj, "dist", w), "rb").read() == before[w] for w in again),
              "the same wheels, byte for byte, are placed in dist/")
        check(all(os.path.exists(os.path.join(bdir, "cells", c["id"], "tested"))
                  for c in report["cells"]), "every cell was tested again")
        check(len(audits()) == n + len(wheels), "each wheel audited once more")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
