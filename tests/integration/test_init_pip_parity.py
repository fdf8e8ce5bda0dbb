"""With no config, cuwheel ships what `pip wheel` ships: each project of tests/init/pyparity/
built both ways, the wheels' file lists and Requires-Dist compared.

The projects say their pure-Python files and requirements where setuptools reads them, not in
setup()'s keywords, which the capture records: `declared` declares its packages and package data
in pyproject.toml's [tool.setuptools] and its requirements in [project] (setup.py only adds the
extension); `setupcfg` is a src-layout whose metadata, packages, requirements, extras and entry
point are in setup.cfg, with data through MANIFEST.in and include_package_data; `flatmods` has
py_modules beside its package, package_data and an extras key holding a marker. Each has a file
next to its packages that setuptools leaves out (and cuwheel's packages = [...] would ship).

1. `cuwheel -C COPY build --no-test` with no config (setup.py captured, setuptools asked);
2. `pip wheel --no-build-isolation --no-deps` of another copy, with the same interpreter;
3. the two wheels' members must be equal but for the .dist-info (pip adds top_level.txt),
   their Requires-Dist and Provides-Extra equal as requirements (packaging parses both), and
   the name and version the same (cuwheel adds its local label).

The extensions are plain C (no CUDA, no torch), to keep it fast. The interpreter is the torch
2.11 venv build/torch-pythons/py3.12 (setuptools 80 and wheel, as examples/torchext/setup-pythons
installs them), first on PATH; it exits 77 without it. Run from the repository root:

    cd build/ci && ctest -R test_init_pip_parity --output-on-failure
"""
import email.parser
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, failures  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
VENV = os.path.join(ROOT, "build", "torch-pythons", "py3.12", "bin")
PYTHON = os.path.join(VENV, "python")
FIXTURES = os.path.join(ROOT, "tests", "init", "pyparity")
SKIP = 77


def one_wheel(d):
    names = [n for n in os.listdir(d) if n.endswith(".whl")] if os.path.isdir(d) else []
    return os.path.join(d, names[0]) if len(names) == 1 else None


def contents(whl):
    """The members outside .dist-info, and the METADATA headers."""
    z = zipfile.ZipFile(whl)
    members = sorted(n for n in z.namelist() if ".dist-info/" not in n.split("/", 1)[0] + "/")
    meta_name = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]
    meta = email.parser.Parser().parsestr(z.read(meta_name).decode())
    return members, meta


def requirements(meta):
    """Requires-Dist as a set of normalised requirement strings (packaging's spelling)."""
    out = subprocess.run([PYTHON, "-c", "import sys\nfrom packaging.requirements import "
                          "Requirement\nfor l in sys.stdin.read().splitlines():\n"
                          "    print(Requirement(l))"],
                         input="\n".join(meta.get_all("Requires-Dist") or []),
                         capture_output=True, text=True)
    check(out.returncode == 0, "packaging parses Requires-Dist: %s" % out.stderr[-400:])
    return sorted(out.stdout.splitlines())


def main():
    if not os.path.exists(PYTHON):
        print("skip: no torch venv at build/torch-pythons/py3.12 "
              "(examples/torchext/setup-pythons)")
        sys.exit(SKIP)
    tmp = tempfile.mkdtemp(prefix="cuwheel-pip-parity-")
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del env[k]
    env["PATH"] = os.pathsep.join([VENV, env.get("PATH", "")])
    env["CUWHEEL_MATRIX_PYTHON"] = "3.12"
    names = sorted(os.listdir(FIXTURES))
    try:
        # Both builds of every project at once: the capture and discovery mostly wait on
        # `import torch` (17 s each on a loaded 2-core machine).
        procs = {}
        for name in names:
            ours, pips = os.path.join(tmp, name), os.path.join(tmp, name + "-pip")
            shutil.copytree(os.path.join(FIXTURES, name), ours)
            shutil.copytree(os.path.join(FIXTURES, name), pips)
            procs[name] = [
                subprocess.Popen([CUWHEEL, "-C", ours, "build", "--no-test", "-j", "1"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True),
                subprocess.Popen([PYTHON, "-m", "pip", "wheel", "--no-build-isolation",
                                  "--no-deps", "--no-index", "-w",
                                  os.path.join(tmp, name + "-pipdist"), pips],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)]
        for name in names:
            ours = os.path.join(tmp, name)
            (cw, pip) = procs[name]
            out, pout = cw.communicate()[0], pip.communicate()[0]
            print(out[-2000:])
            check(cw.returncode == 0, "%s: cuwheel build with no config exits 0" % name)
            check(pip.returncode == 0, "%s: pip wheel exits 0 (%s)" % (name, pout[-800:]))
            ow = one_wheel(os.path.join(ours, "dist"))
            pw = one_wheel(os.path.join(tmp, name + "-pipdist"))
            if not check(ow and pw, "%s: one wheel each way (%s, %s)" % (name, ow, pw)):
                continue
            (om, ometa), (pm, pmeta) = contents(ow), contents(pw)
            check(om == pm, "%s: the same files as pip's wheel:\n  cuwheel %s\n  pip     %s"
                  % (name, om, pm))
            check(requirements(ometa) == requirements(pmeta),
                  "%s: the same Requires-Dist: %s vs %s"
                  % (name, ometa.get_all("Requires-Dist"), pmeta.get_all("Requires-Dist")))
            check(sorted(ometa.get_all("Provides-Extra") or []) ==
                  sorted(pmeta.get_all("Provides-Extra") or []),
                  "%s: the same Provides-Extra" % name)
            check(ometa["Name"] == pmeta["Name"] and
                  ometa["Version"].split("+")[0] == pmeta["Version"],
                  "%s: the same name and version (%s %s, %s %s)"
                  % (name, ometa["Name"], ometa["Version"], pmeta["Name"], pmeta["Version"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("ok: %d projects ship what pip ships" % len(names))


if __name__ == "__main__":
    main()
