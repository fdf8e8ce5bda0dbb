#!/usr/bin/env python3
"""test_torch_test_venv.py: `cuwheel test` of a torch cell downloads no torch (issue 20,
point 6), and --json shows a passing test's output summary.

A wheel that declares Requires-Dist: torch>=2.11,<2.12 (as every torch cell's wheel does) is
tested with `cuwheel test --json` on a project whose Python 3.12 is a torch 2.11 venv
(build/torch-pythons/py3.12), with pip kept off every index (PIP_NO_INDEX=1, no find-links):
  - [tool.cuwheel.test] torch unset ("build"): the test venv sees the build's torch, pip finds
    the requirement satisfied, the command imports torch and the wheel: pass, and the JSON's
    "output" holds the command's last lines (it was null for passing pairs);
  - torch = "index": pip must resolve torch from an index, there is none: the pair fails in
    "pip install" (so the first case proves something).
Needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons); exits 77 without it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheelfixture as wf  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
PY = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin", "python")

PYPROJECT = """
[project]
name = "tvt"
version = "1.0"
requires-python = ">=3.10"

[tool.cuwheel]
packages = ["python/tvt"]

[tool.cuwheel.extension]
module = "tvt._C"
kind = "torch"
sources = ["src/t.cpp"]

[tool.cuwheel.matrix]
python = ["3.12"]
cuda = ["13.0"]
torch = ["2.11"]

[tool.cuwheel.pythons]
"3.12" = "%s"

[tool.cuwheel.test]
command = "python -c \\"import torch, tvt; print('tvt', tvt.VALUE, 'with torch', torch.__version__)\\""
%s
"""


def main():
    if not os.access(PY, os.X_OK):
        print("skip: needs build/torch-pythons/py3.12 (examples/torchext/setup-pythons)")
        return 77
    failures = []
    tmp = tempfile.mkdtemp(prefix="cuwheel-torchvenv-")
    try:
        proj = os.path.join(tmp, "proj")
        for d in ("src", "python/tvt"):
            os.makedirs(os.path.join(proj, d))
        open(os.path.join(proj, "src", "t.cpp"), "w").close()
        open(os.path.join(proj, "python", "tvt", "__init__.py"), "w").close()
        whl = wf.make_wheel(os.path.join(tmp, "dist"), "tvt", "1.0", "py3-none-any",
                            {"tvt/__init__.py": b"VALUE = 7\n"},
                            requires=["torch>=2.11,<2.12"])
        env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS="",
                   CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"))
        for mode, line in (("build", ""), ("index", 'torch = "index"')):
            with open(os.path.join(proj, "pyproject.toml"), "w") as f:
                f.write(PYPROJECT % (PY, line))
            p = subprocess.run([CUWHEEL, "-C", proj, "test", "--json", whl],
                               capture_output=True, text=True, env=env)
            try:
                res = json.loads(p.stdout)["results"]
            except (ValueError, KeyError):
                res = []
            r = res[0] if res else {}
            print("torch = %s: exit %d, %s" % (mode, p.returncode, json.dumps(r)[:600]))
            if mode == "build":
                if not (p.returncode == 0 and r.get("result") == "pass"):
                    failures.append("torch = build: the wheel passes offline (%s)"
                                    % p.stderr[-1500:])
                elif "tvt 7 with torch 2.11" not in (r.get("output") or ""):
                    failures.append("--json shows the passing command's output: %r"
                                    % r.get("output"))
                else:
                    print("ok   torch = build: passes offline with the build's torch; output %r"
                          % r["output"])
            else:
                if not (p.returncode == 1 and r.get("result") == "fail"
                        and r.get("reason") == "pip install"):
                    failures.append("torch = index: pip has no index and fails (%s)" % r)
                else:
                    print("ok   torch = index: pip install fails without an index")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
