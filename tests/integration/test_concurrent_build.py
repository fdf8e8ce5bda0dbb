#!/usr/bin/env python3
"""test_concurrent_build.py: two `cuwheel build` on one build dir (tinyraster, 2 Pythons + abi3,
CUDA 13.0, arch 7.5). The second waits for the first's lock with a message ("another cuwheel
build holds ... waiting"), then finds nothing to do: no step ran twice or interleaved (the
.ninja_log lists each output once), both succeed, and the wheels are those of the first. Then a
holder killed with SIGKILL mid-build: the lock is inherited by the ninja it started, so the next
build waits while that orphaned ninja still works in the build dir (never interleaving with it),
then completes and gives byte-identical wheels; with no orphan left it starts at once (flock dies
with its last holder). Skipped (exit 77, testskip.py) when nvcc or the Pythons are missing."""
import glob
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402
import wheeldiff  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/hard/cuwheel"))
FAILS = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else " " + detail))
    if not ok:
        FAILS.append(what)


def wheels(dist):
    out = {}
    for p in glob.glob(os.path.join(dist, "*.whl")):
        with open(p, "rb") as f:
            out[os.path.basename(p)] = hashlib.sha256(f.read()).hexdigest()
    return out


def lock_pid(proj):
    try:
        with open(os.path.join(proj, "build", "cuwheel", ".cuwheel.lock")) as f:
            return f.read().strip()
    except OSError:
        return ""


def ninja_outputs(log):
    """Outputs in .ninja_log (format v5+: start, end, mtime, output, hash)."""
    outs = []
    with open(log) as f:
        for line in f:
            if not line.startswith("#"):
                outs.append(line.rstrip("\n").split("\t")[3])
    return outs


def orphans(build_dir):
    """Processes (ninja, nvcc, compilers) still working in build_dir."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd.startswith(build_dir) or build_dir in cmd:
            found.append(f"{pid}: {cmd[:100]}")
    return found


def main():
    if not (os.path.exists("/usr/local/cuda-13.0/bin/nvcc") or shutil.which("nvcc")):
        return testskip.skip_code("no nvcc")
    with tempfile.TemporaryDirectory(prefix="cuwheel-concurrent-") as tmp:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for x in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
            s = os.path.join(ROOT, "examples", "tinyraster", x)
            (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(proj, x))
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
        env.update(NO_COLOR="1", SOURCE_DATE_EPOCH="1700000000", CUWHEEL_MATRIX_CUDA="13.0",
                   CUWHEEL_ARCHS="7.5", CUWHEEL_MATRIX_PYTHON="3.11,3.12",
                   CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
        cmd = [CUWHEEL, "build", "--no-test", "-j", "2"]
        build_dir = os.path.join(proj, "build", "cuwheel")
        dist = os.path.join(proj, "dist")

        # 1. Two builds at once.
        a = subprocess.Popen(cmd, cwd=proj, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        for _ in range(600):
            if lock_pid(proj) == str(a.pid):
                break
            time.sleep(0.05)
        check("the first build holds the lock (its pid is in .cuwheel.lock)",
              lock_pid(proj) == str(a.pid), lock_pid(proj))
        b = subprocess.Popen(cmd, cwd=proj, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        a_out, a_err = a.communicate(timeout=900)
        a_end = time.time()
        b_out, b_err = b.communicate(timeout=900)
        check("first build succeeds", a.returncode == 0, a_err[-2000:])
        check("second build succeeds", b.returncode == 0, b_err[-2000:])
        check("second build says it waits for the first",
              "another cuwheel build holds" in b_err and "waiting" in b_err, b_err[:500])
        check(f"the message names the holder's pid ({a.pid})", f"pid {a.pid}" in b_err,
              b_err[:300])
        check("the second build found nothing to do (it ran after the first, not beside it)",
              "no work to do" in (b_out + b_err), (b_out + b_err)[-1500:])
        outs = ninja_outputs(os.path.join(build_dir, ".ninja_log"))
        dup = sorted({o for o in outs if outs.count(o) > 1})
        check("every output appears once in .ninja_log", not dup, str(dup[:5]))
        first = wheels(dist)
        kept = os.path.join(tmp, "first-dist")
        shutil.copytree(dist, kept)
        check("three wheels", len(first) == 3, str(first))

        # 2. A holder that dies with SIGKILL mid-build does not block the next build.
        shutil.rmtree(os.path.join(proj, "build"))
        shutil.rmtree(dist)
        # Without ccache, so that the kill lands in nvcc and not after a cached build.
        a = subprocess.Popen(cmd, cwd=proj, env={**env, "CCACHE_DISABLE": "1"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        for _ in range(600):
            if lock_pid(proj) == str(a.pid):
                break
            time.sleep(0.05)
        time.sleep(3)  # into nvcc
        check("the holder is still building when it is killed", a.poll() is None)
        a.send_signal(signal.SIGKILL)
        a.wait()
        left = orphans(build_dir)
        if left:
            print(f"note: {len(left)} processes outlived the SIGKILLed holder: {left[:3]}")
        t0 = time.time()
        r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=900)
        check("the build after a SIGKILLed holder succeeds", r.returncode == 0, r.stderr[-2000:])
        if left:
            check("it waits while the dead holder's ninja still runs", "waiting" in r.stderr,
                  r.stderr[:300])
        else:
            check("with no orphan left it does not wait", "waiting" not in r.stderr, r.stderr[:300])
        check("no orphan of the dead holder outlives the next build", not orphans(build_dir),
              str(orphans(build_dir)[:3]))
        again = wheels(dist)
        how = [f"{name}: " + "; ".join(wheeldiff.diff(os.path.join(kept, name),
                                                    os.path.join(dist, name)))
               for name in sorted(set(again) & set(first)) if again[name] != first[name]]
        check("and gives byte-identical wheels", again == first,
              f"{sorted(again)} vs {sorted(first)}\n" + "\n".join(how))
        print(f"(second build after the crash: {time.time() - t0:.1f}s)")
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("concurrent builds serialised by the lock; a crashed holder's lock is released")
    return 0


if __name__ == "__main__":
    sys.exit(main())
