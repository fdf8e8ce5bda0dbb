"""gsplat 1.5.3's sdist with no config equals it with examples/gsplat's config (issue 29).

1. Fetches gsplat-1.5.3.tar.gz with `pip download --no-binary :all: --no-deps gsplat==1.5.3`
   (sha256 pinned; cached under build/realproject-cache); exits 77 without it and no network.
2. `cuwheel plan SDIST --json` three ways: with examples/gsplat/gsplat.cuwheel.toml, with no
   config (setup.py captured on the fly), and with the config `cuwheel init SDIST` writes. The
   three must be equal but for the "config" key: the same cells, wheels, metadata and origins,
   and the same torch decisions (which sources are compiled per Python).
3. `cuwheel build SDIST -n` (build.ninja written, nothing run) with the hand config and with no
   config: the two build.ninja files must be equal but for the config's path: the same kernel
   sources compiled once per toolkit, the same per-Python sources, the same flags.
4. With GSPLAT_INIT_BUILD=1 (long: gsplat's 28 kernel sources): `cuwheel build SDIST` both
   ways from an empty build dir each (ccache shared); the wheels must be byte-identical (names,
   sha256), hence the same file lists and METADATA.

The Pythons are the torch 2.11 venvs (build/torch-pythons/py3.12, py3.13) put first on PATH;
GSPLAT_PYTHONS (default "3.12 3.13") is the python axis of both runs, GSPLAT_ARCHS (default 8.0)
the archs. Run from the repository root with $CUWHEEL set:

    cmake --preset ci -DCUWHEEL_REALPROJECT_TESTS=ON && cmake --build build/ci
    cd build/ci && ctest -R realproject.gsplat_init --output-on-failure
    # or, with the full build:
    GSPLAT_INIT_BUILD=1 CUWHEEL=build/ci/cuwheel python3 tests/realproject/gsplat_init.py
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "integration"))
from checks import check, run, failures  # noqa: E402

SDIST = "gsplat-1.5.3.tar.gz"
SHA256 = "343f080c470e891ba3c697c03bdf0952cb982d1d535fdc24adb23c2cb4fba906"
ROOT = os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/ci/cuwheel"))
CONFIG = os.path.join(ROOT, "examples", "gsplat", "gsplat.cuwheel.toml")
PYTHONS = os.environ.get("GSPLAT_PYTHONS", "3.12 3.13").split()
ARCHS = os.environ.get("GSPLAT_ARCHS", "8.0")
CACHE = os.path.abspath(os.environ.get("GSPLAT_CACHE", os.path.join("build", "realproject-cache")))
VENVS = [os.path.join(ROOT, "build", "torch-pythons", "py" + v, "bin") for v in PYTHONS]
SKIP = 77


def fetch_sdist():
    path = os.path.join(CACHE, SDIST)
    if os.path.exists(path) and hashlib.sha256(open(path, "rb").read()).hexdigest() == SHA256:
        return path
    os.makedirs(CACHE, exist_ok=True)
    rc, out = run([os.path.join(VENVS[0], "python"), "-m", "pip", "download", "--no-binary",
                   ":all:", "--no-deps", "-d", CACHE, "gsplat==1.5.3"])
    if rc != 0 or not os.path.exists(path):
        print("skip: pip download of gsplat==1.5.3 failed and it is not cached:\n" + out[-800:])
        sys.exit(SKIP)
    if not check(hashlib.sha256(open(path, "rb").read()).hexdigest() == SHA256,
                 "%s has the pinned sha256" % SDIST):
        sys.exit(1)
    return path


def plan(env, *args):
    rc, out = run([CUWHEEL, "plan", "--json"] + list(args), env=env,
                  stderr=subprocess.PIPE)
    return rc, (json.loads(out) if rc == 0 else out)


def wheels(d):
    return {n: hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
            for n in sorted(os.listdir(d)) if n.endswith(".whl")} if os.path.isdir(d) else {}


def main():
    if not all(os.path.exists(os.path.join(v, "python")) for v in VENVS):
        print("skip: no torch venvs for %s under build/torch-pythons" % PYTHONS)
        sys.exit(SKIP)
    sdist = fetch_sdist()
    tmp = tempfile.mkdtemp(prefix="cuwheel-gsplat-init-")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CUWHEEL_") or k == "CUWHEEL_CACHE_DIR"}
    env.update(PATH=os.pathsep.join(VENVS + [os.environ.get("PATH", "")]),
               CUWHEEL_MATRIX_PYTHON=",".join(PYTHONS), CUWHEEL_ARCHS=ARCHS,
               CUWHEEL_BUILD_DIR=os.path.join(tmp, "build"),
               CUWHEEL_DIST_DIR=os.path.join(tmp, "dist"))
    try:
        rc, hand = plan(env, sdist, "--config", CONFIG)
        check(rc == 0, "plan with examples/gsplat's config exits 0")
        rc, auto = plan(env, sdist)
        check(rc == 0, "plan with no config exits 0 (setup.py captured)")
        written = os.path.join(tmp, "gsplat.cuwheel.toml")
        rc, out = run([CUWHEEL, "init", sdist, "-o", written], env=env)
        print(out[-600:])
        check(rc == 0 and os.path.exists(written), "cuwheel init SDIST writes a config")
        rc, init = plan(env, sdist, "--config", written)
        check(rc == 0, "plan with the config init wrote exits 0")
        if isinstance(hand, dict) and isinstance(auto, dict) and isinstance(init, dict):
            for p in (hand, auto, init):
                p.get("config", {}).pop("config_file", None)
            check(auto == hand, "plan --json with no config equals it with the hand config "
                  "(cells, wheels, metadata and its origins, torch decisions)")
            check(init == hand, "plan --json with init's config equals it with the hand config")
            print(json.dumps(hand.get("torch_plan"), indent=1)[:1500])
            check(len([c for c in hand["matrix"]["cells"] if c["selected"] and c["buildable"]])
                  == len(PYTHONS), "one buildable cell per Python of %s" % PYTHONS)

        # build.ninja both ways: every edge (sources once per toolkit or per Python, flags).
        ninja = {}
        for how, args in (("hand", ["--config", CONFIG]), ("auto", [])):
            rc, out = run([CUWHEEL, "build", sdist, "-n", "--no-test"] + args, env=env)
            print(out[-800:])
            check(rc == 0, "build -n (%s) exits 0" % how)
            text = open(os.path.join(tmp, "build", "build.ninja")).read()
            for c in (CONFIG, os.path.join(tmp, "build", "init", "cuwheel.toml")):
                text = text.replace(c, "CONFIG")
            # the header names the config file by its base name
            text = re.sub(r"^(# Generated by cuwheel \S+ from ).*(; do not edit\.)$",
                          r"\1CONFIG\2", text, flags=re.M)
            ninja[how] = text
        check(ninja["hand"] == ninja["auto"],
              "build.ninja with no config equals it with the hand config (but the config path)")
        if ninja["hand"] != ninja["auto"]:
            import difflib
            print("".join(list(difflib.unified_diff(ninja["hand"].splitlines(True),
                                                    ninja["auto"].splitlines(True)))[:80]))

        if os.environ.get("GSPLAT_INIT_BUILD") == "1":
            got = {}
            for how, args in (("hand", ["--config", CONFIG]), ("auto", [])):
                shutil.rmtree(os.path.join(tmp, "build"), ignore_errors=True)
                e = dict(env, CUWHEEL_DIST_DIR=os.path.join(tmp, "dist-" + how))
                rc, out = run([CUWHEEL, "build", sdist, "--no-test"] + args, env=e)
                print(out[-2000:])
                check(rc == 0, "build (%s) exits 0" % how)
                got[how] = wheels(os.path.join(tmp, "dist-" + how))
            check(got["hand"] == got["auto"] and len(got["hand"]) == len(PYTHONS),
                  "the wheels with no config are those with the hand config, byte for byte: "
                  "%s" % got)
        else:
            print("note: GSPLAT_INIT_BUILD=1 also builds and compares the wheels (long)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
