"""cuwheel ci github for a torch project with no config (no [tool.cuwheel], no --config): the
build is read from its setup.py as `cuwheel init -o` would, into <repository>/<name>.cuwheel.toml,
whose python and cuda axes are those of PyPI's build of the torch setup.py ran with
(ci/torch_builds.def: torch 2.11 has wheels for 3.10-3.14, CUDA 13.0), not this machine's;
the workflow names that file (CONFIG), holds no path of this machine, passes actionlint, and
every (Python, torch) it installs exists. A second run does not overwrite the config.

Needs the torch 2.11 venv build/torch-pythons/py3.12 (examples/torchext/setup-pythons): the
capture runs setup.py with a Python that has torch."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ci_github as tcg  # noqa: E402
from test_ci_github import check, load, validate, check_hygiene, check_pins  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")

SETUP = textwrap.dedent("""\
    from setuptools import setup
    from torch.utils.cpp_extension import BuildExtension, CppExtension
    setup(name="cfdemo", version="0.3.0", packages=["cfdemo"],
          ext_modules=[CppExtension("cfdemo._C", ["csrc/ops.cpp"])],
          cmdclass={"build_ext": BuildExtension})
    """)
OPS = textwrap.dedent("""\
    #include <torch/extension.h>
    static at::Tensor twice(const at::Tensor &x) { return x * 2; }
    PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice", &twice); }
    """)


def main():
    if not os.path.exists(os.path.join(VENV, "python")):
        skip("no torch venv at build/torch-pythons/py3.12 (examples/torchext/setup-pythons)")
    tmp = tempfile.mkdtemp(prefix="cuwheel-ci-configfree-")
    try:
        repo = os.path.join(tmp, "repo")
        for d in (".git", "cfdemo", "csrc"):
            os.makedirs(os.path.join(repo, d))
        open(os.path.join(repo, "cfdemo", "__init__.py"), "w").close()
        with open(os.path.join(repo, "setup.py"), "w") as f:
            f.write(SETUP)
        with open(os.path.join(repo, "csrc", "ops.cpp"), "w") as f:
            f.write(OPS)
        env = tcg.clean_env({"PATH": VENV + os.pathsep + os.environ.get("PATH", "")})
        args = [tcg.CUWHEEL, "-C", repo, "ci", "github", "--stdout", "--cuwheel",
                tcg.CUWHEEL_SPEC]
        p = subprocess.run(args, env=env, capture_output=True, text=True)
        config = os.path.join(repo, "cfdemo.cuwheel.toml")
        check(p.returncode == 0 and os.path.isfile(config),
              "no config: ci github writes the reviewed config into the repository",
              p.stdout[-2000:] + p.stderr)
        if p.returncode:
            raise SystemExit(1)
        text = p.stdout
        doc = validate("config-free torch project", text)
        check_hygiene("config-free", doc, text, ())
        check_pins("config-free", doc, text)
        tcg.check_torch_cells("config-free", doc, text)
        check(doc["env"]["CONFIG"] == "cfdemo.cuwheel.toml" and doc["env"]["PROJECT"] == "."
              and "build/cuwheel/init" not in text,
              "config-free: the workflow names the config in the repository", doc["env"])
        with open(config) as f:
            cfg = f.read()
        check(re.search(r'^python = \["3.10", "3.11", "3.12", "3.13", "3.14"\]', cfg, re.M) and
              re.search(r'^cuda = \["13.0"\]', cfg, re.M) and
              re.search(r'^torch = \["2.11"\]', cfg, re.M) and
              "PyPI's torch 2.11.0" in cfg and tmp not in cfg and ROOT not in cfg,
              "config-free: its axes are PyPI's torch 2.11 (3.10-3.14, CUDA 13.0), no path here",
              cfg)
        cells = sorted(ln.split()[0] for ln in [
            s for s in doc["jobs"]["index"]["steps"]
            if s.get("name") == "Wheels present and missing"][0]["env"]["CELLS"].splitlines())
        check(cells == [f"cp3{m}-pt211-cu130-linux_x86_64" for m in range(10, 15)],
              "config-free: one cell per Python of torch 2.11", str(cells))
        p = subprocess.run(args, env=env, capture_output=True, text=True)
        check(p.returncode == 1 and "exists" in p.stderr and "--config" in p.stderr,
              "config-free: a second run does not overwrite the config", p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if tcg.failures:
        sys.exit(f"{len(tcg.failures)} check(s) failed")
    print("test_ci_configfree: all checks passed")


if __name__ == "__main__":
    main()
