#!/usr/bin/env python3
"""test_toolkit_wrapper.py: an nvcc on PATH that is a wrapper script (as /usr/local/bin/nvcc on
some images: `exec /usr/local/cuda-13.0/bin/nvcc "$@"`, beside an include/ and lib64/ of other
things) is not taken for a toolkit root. Its parent once became CUDA 13.0's root on a machine
whose PATH lacked /usr/local/cuda/bin: cudafe++ there was another wrapper, so the probes dropped
-Xcudafe --orig_src_path_name, objects carried their source paths, and wheels built in two
directories differed (build_stages, test_concurrent_build and the golden build.ninja failed).

Checks, with PATH = [fake]/bin + the system's and no CUDA_HOME/CUDA_PATH:
  - a wrapper whose nvcc names its real directory (`nvcc -dryrun` prints _HERE_) gives that
    toolkit's root, and `doctor` says the wrapper was followed;
  - a "nvcc" that is no NVIDIA driver (prints a version, no _HERE_) is no toolkit, with the
    reason in `doctor`;
  - the build.ninja of a project is the same as with the real nvcc first on PATH.
Exits 77 without the system CUDA 13.0 toolkit."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or os.path.join(ROOT, "build", "ci", "cuwheel"))
REAL = "/usr/local/cuda-13.0"
FAILS = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)
        if detail:
            print("     " + str(detail).replace("\n", "\n     "))


def fake_root(path, nvcc_script):
    """A directory that looks like a toolkit root from outside: bin/nvcc, include/, lib64/."""
    os.makedirs(os.path.join(path, "bin"))
    os.makedirs(os.path.join(path, "include"))
    os.makedirs(os.path.join(path, "lib64"))
    open(os.path.join(path, "include", "cuda_runtime.h"), "w").write("/* not CUDA's */\n")
    open(os.path.join(path, "lib64", "libcudart_static.a"), "w").write("!<arch>\n")
    nvcc = os.path.join(path, "bin", "nvcc")
    with open(nvcc, "w") as f:
        f.write(nvcc_script)
    os.chmod(nvcc, 0o755)


def env_with(bindir, tmp):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CUWHEEL_") and k not in ("CUDA_HOME", "CUDA_PATH")}
    path = [p for p in env.get("PATH", "").split(":") if p and "cuda" not in p]
    env["PATH"] = ":".join([bindir] + path)
    env.update(CUWHEEL_MATRIX_CUDA="13.0", CUWHEEL_MATRIX_PYTHON="3.12", CUWHEEL_CCACHE="off",
               CUWHEEL_NVCC_THREADS="2", CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
    return env


def run(args, cwd, env):
    return subprocess.run([CUWHEEL] + args, cwd=cwd, env=env, capture_output=True, text=True)


def ninja_text(proj, env):
    r = run(["build", "-n"], proj, env)
    for line in r.stdout.splitlines():
        if line.rstrip().endswith("build.ninja") and "-> " in line:
            return open(line.split("-> ", 1)[1].strip()).read(), r
    return None, r


def main():
    if not os.path.exists(os.path.join(REAL, "bin", "nvcc.profile")):
        return testskip.skip_code(f"no CUDA 13.0 toolkit at {REAL}")
    with tempfile.TemporaryDirectory(prefix="cuwheel-wrapper-") as tmp:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for name in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
            src = os.path.join(ROOT, "examples", "tinyraster", name)
            (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(proj, name))

        # 1. The wrapper is followed to the toolkit it runs.
        wrap = os.path.join(tmp, "wrap")
        fake_root(wrap, f'#!/bin/sh\nexec {REAL}/bin/nvcc "$@"\n')
        env = env_with(os.path.join(wrap, "bin"), tmp)
        r = run(["plan", "--json"], proj, env)
        import json
        roots = [t.get("root") for t in json.loads(r.stdout)["matrix"]["toolkits"]] if r.stdout else []
        check("a wrapper nvcc on PATH gives the wrapped toolkit's root, not its parent",
              roots == [REAL], f"roots {roots}\n{r.stderr[-1500:]}")
        d = run(["doctor"], proj, env)
        check("doctor says the wrapper was followed",
              f"{wrap}/bin/nvcc is a wrapper" in d.stdout + d.stderr and f"{REAL}/bin/nvcc" in
              d.stdout + d.stderr, (d.stdout + d.stderr)[-1500:])
        wrapped, r1 = ninja_text(proj, env)
        shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)

        # 2. The same graph as with the real nvcc first on PATH.
        direct, r2 = ninja_text(proj, env_with(os.path.join(REAL, "bin"), tmp))
        shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
        check("build.ninja through the wrapper is the one through the real nvcc",
              wrapped is not None and wrapped == direct,
              (r1.stderr + r2.stderr)[-1500:] if wrapped is None or direct is None else
              "\n".join(a + "\n  vs " + b for a, b in zip(wrapped.splitlines(),
                                                         direct.splitlines()) if a != b)[:3000])
        check("with -Xcudafe --orig_src_path_name (the probe saw the real cudafe++)",
              wrapped is not None and "--orig_src_path_name=kernels/" in wrapped)

        # 3. Something named nvcc that is no NVIDIA driver is no toolkit.
        liar = os.path.join(tmp, "liar")
        fake_root(liar, "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.1'\n")
        env = env_with(os.path.join(liar, "bin"), tmp)
        r = run(["plan", "--json"], proj, env)
        roots = [t.get("root") for t in json.loads(r.stdout)["toolkits"]] if r.stdout else []
        check("an nvcc that is no NVIDIA driver is not a toolkit", liar not in roots,
              f"roots {roots}")
        d = run(["doctor"], proj, env)
        check("doctor gives the reason", "not NVIDIA's nvcc driver" in d.stdout + d.stderr,
              (d.stdout + d.stderr)[-1500:])
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("wrapper nvcc followed to its toolkit; a fake nvcc refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
