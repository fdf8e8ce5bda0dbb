"""`cuwheel build` with no config equals the build with a hand-written config, byte for byte,
for two torch projects of tests/init/ that show the traps of re-saying setup.py by hand:

- halfops: one project header pulls torch/extension.h into every C++ source (both are then
  compiled per Python, the .cu once), six -U__CUDA_NO_* nvcc flags, a top-level module
  (_halfops_c), the metadata in pyproject.toml's static [project] (read with --config too);
- twoext: two extension modules (twoext._add, twoext._mul) in one wheel, define_macros,
  BuildExtension.with_options(no_python_abi_suffix=True), a console script, no pyproject.toml
  (the metadata is setup()'s).

For each: `cuwheel -C PROJ build --config hand.cuwheel.toml`, then, from an empty build dir,
`cuwheel -C PROJ build` (no [tool.cuwheel] anywhere: setup.py is captured on the fly, said in
one line); the wheels must have the same names and sha256. `cuwheel init` on the project must
write a config that names every value's origin. Python 3.12 only and arch 8.0, to keep the
compile time down (CUWHEEL_MATRIX_PYTHON / CUWHEEL_ARCHS apply to both builds alike).

Needs the torch 2.11 venvs (build/torch-pythons) and a CUDA 13 toolkit. Run from the repository
root with $CUWHEEL set (CTest does both)."""
import hashlib
import os
import shutil
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, run, failures  # noqa: E402
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/debug/cuwheel"))
VENVS = [os.path.join(ROOT, "build", "torch-pythons", v, "bin") for v in ("py3.12", "py3.13")]
FIXTURES = {
    "halfops": {"modules": ["_halfops_c.cpython-312-x86_64-linux-gnu.so"],
                "origins": ['extra_compile_args["nvcc"]', "-U__CUDA_NO_HALF_OPERATORS__",
                            'module = "_halfops_c"', 'sources = ["csrc/*.cpp"]']},
    "twoext": {"modules": ["twoext/_add.so", "twoext/_mul.so"],
               "origins": ['module = "twoext._add"', 'module = "twoext._mul"',
                           "no_python_abi_suffix=True", '"twoext-info" = "twoext:info"',
                           "define_macros"]},
}


def wheels(d):
    out = {}
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if n.endswith(".whl"):
            out[n] = hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
    return out


def main():
    if not all(os.path.exists(os.path.join(v, "python")) for v in VENVS):
        skip("no torch venvs at build/torch-pythons (examples/torchext/setup-pythons)")
    tmp = tempfile.mkdtemp(prefix="cuwheel-init-fixtures-")
    base = dict(os.environ)
    for k in [k for k in base if k.startswith("CUWHEEL_") and k != "CUWHEEL_CACHE_DIR"]:
        del base[k]
    base["PATH"] = os.pathsep.join(VENVS + [base.get("PATH", "")])
    base.update(CUWHEEL_MATRIX_PYTHON="3.12", CUWHEEL_ARCHS="8.0")
    try:
        for name, want in FIXTURES.items():
            proj = os.path.join(tmp, name)
            shutil.copytree(os.path.join(ROOT, "tests", "init", name), proj)
            build = os.path.join(tmp, name + "-build")
            env = dict(base, CUWHEEL_BUILD_DIR=build,
                       CUWHEEL_DIST_DIR=os.path.join(tmp, name + "-hand"))
            rc, out = run([CUWHEEL, "-C", proj, "build", "--no-test", "-j", "2", "--config",
                           "hand.cuwheel.toml"], env=env)
            print(out[-2500:])
            check(rc == 0, "%s: build with the hand-written config exits 0" % name)
            hand = wheels(os.path.join(tmp, name + "-hand"))
            check(len(hand) == 1, "%s: one wheel with the hand-written config: %s" % (name, hand))

            shutil.rmtree(build)
            env["CUWHEEL_DIST_DIR"] = os.path.join(tmp, name + "-auto")
            rc, out = run([CUWHEEL, "-C", proj, "build", "--no-test", "-j", "2"], env=env)
            print(out[-2500:])
            check(rc == 0, "%s: build with no config exits 0" % name)
            check(out.count("cuwheel: no [tool.cuwheel]: the build is read from setup.py") == 1,
                  "%s: the capture is said in one line" % name)
            auto = wheels(os.path.join(tmp, name + "-auto"))
            check(auto == hand and len(auto) == 1,
                  "%s: the same wheel, byte for byte, with no config: %s vs %s"
                  % (name, auto, hand))
            for w in auto:
                names = zipfile.ZipFile(os.path.join(tmp, name + "-auto", w)).namelist()
                for m in want["modules"]:
                    check(m in names, "%s: the wheel holds %s (%s)" % (name, m, names))
            config = open(os.path.join(build, "init", "cuwheel.toml")).read()
            for o in want["origins"]:
                check(o in config, "%s: the captured config says %r" % (name, o))
            check("setup.py:" in config, "%s: values carry their setup.py line" % name)
            rc, out = run([CUWHEEL, "-C", proj, "init", "-o", os.path.join(tmp, name + ".toml")],
                          env=env)
            check(rc == 0 and os.path.exists(os.path.join(tmp, name + ".toml")),
                  "%s: cuwheel init writes its config (%d)" % (name, rc))
            left = set(os.listdir(proj)) - set(os.listdir(os.path.join(ROOT, "tests", "init", name)))
            check(not left, "%s: nothing written in the project (%s)" % (name, sorted(left)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
