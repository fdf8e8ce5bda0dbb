"""A build audits each wheel once: `internal finish` keeps its audit result (cells/<id>/audit.json),
report.json carries it, and the report (report.html, report-data.json) is made from it without
auditing again. Counted with CUWHEEL_AUDIT_TRACE (audit_wheel appends one line per audit) over a
real build of tinyraster (CUDA 13.0, Python 3.12, one GPU arch, no tests), a no-op rebuild and
`cuwheel report`. Exits 77 (skipped) without a CUDA 13.0 toolkit or Python 3.12."""
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
            src = os.path.join(ROOT, name)
            (shutil.copytree if os.path.isdir(src) else shutil.copy)(src,
                                                                    os.path.join(proj, name))
        trace = os.path.join(tmp, "audits.txt")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
        env.update({"CUWHEEL_MATRIX_CUDA": "13.0", "CUWHEEL_MATRIX_PYTHON": "3.12",
                    "CUWHEEL_ARCHS": "8.6", "CUWHEEL_AUDIT_TRACE": trace})

        def run(*args):
            return subprocess.run([CUWHEEL, *args], cwd=proj, env=env, capture_output=True,
                                  text=True)

        def audits():
            return open(trace).read().splitlines() if os.path.exists(trace) else []

        p = run("plan", "--json")
        if p.returncode not in (0, 3):
            print(p.stderr, file=sys.stderr)
            return 1
        cells = [c for c in json.loads(p.stdout)["cells"] if c["selected"]]
        if not cells or not all(c["buildable"] for c in cells):
            print("SKIP: needs a CUDA 13.0 toolkit and Python 3.12 here")
            return 77
        p = run("build", "--no-test", "--no-provision", "--progress", "plain")
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
        data = json.load(open(os.path.join(bdir, "report-data.json")))
        check(all(c["audit"] and c["audit"]["platform_tag"] for c in data["cells"]),
              "report-data.json shows every cell's platform tag")
        html = open(os.path.join(bdir, "report.html")).read()
        tag = report["cells"][0]["audit"]["platform_tag"].split(".")[0]
        check(tag in html, f"report.html shows the platform tag {tag}")

        n = len(audits())
        p = run("build", "--no-test", "--no-provision", "--progress", "plain")
        check(p.returncode == 0 and len(audits()) == n, "a no-op rebuild audits nothing",
              p.stdout[-2000:] + p.stderr[-2000:])
        report = json.load(open(os.path.join(bdir, "report.json")))
        check(all(c["audit"] and c["audit"]["ok"] for c in report["cells"]),
              "the no-op rebuild's report.json still carries the audits")
        p = run("report")
        check(p.returncode == 0 and len(audits()) == n, "cuwheel report audits nothing",
              p.stdout + p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
