#!/usr/bin/env python3
"""test_signal_trials: signals to `cuwheel build` at random moments (issue 19, class 4).

SIGINT, SIGTERM, SIGHUP and SIGKILL in turn, sent after a random delay either to cuwheel alone
(`kill PID`) or to its process group (a terminal's ^C), on a small matrix build (tinyraster,
CUDA 13.0, sm_75, two Pythons) with ccache, so that a trial from a clean build dir is quick.
After each trial:
  - no process of the build outlives cuwheel (every process started for it carries a marker in
    its environment; /proc is searched for it), except after SIGKILL, where the survivors are
    killed by the test (documented: the build lock, inherited, keeps the build dir locked);
  - no wheel appears in dist/ after cuwheel has exited (dist/ read at exit and 1.5 s later),
    and every wheel there is byte-identical to the uninterrupted build's (nothing partial);
  - no temp file (hidden `.*` in dist/, `*.tmp.*` in the build dir) after a signal other than
    SIGKILL;
and every 10th trial, and at the end, an uninterrupted re-run gives byte-identical wheels.
SIGNAL_TRIALS (default 100) and SIGNAL_SEED change the count and replay a run. Needs nvcc 13.0,
two of the pyenv Pythons 3.11/3.12 and ccache; skipped (77) without them."""
import glob
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd()))
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", os.path.join(ROOT, "build/ci/cuwheel")))
SEED = int(os.environ.get("SIGNAL_SEED", str(int(time.time()))))
RNG = random.Random(SEED)
SIGS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]
FAILS = []


def check(what, ok, detail=""):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what} {detail}"[:3000], flush=True)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def wheels(dist):
    out = {}
    for p in glob.glob(os.path.join(dist, "*.whl")):
        try:
            out[os.path.basename(p)] = digest(p)
        except FileNotFoundError:
            pass
    return out


def marked(marker):
    """Pids of live processes whose environment holds marker."""
    found = []
    needle = marker.encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle in f.read():
                    with open(f"/proc/{d}/stat") as s:
                        if s.read().split(") ")[-1].startswith("Z"):
                            continue  # a zombie holds nothing; its parent reaps it
                    found.append(int(d))
        except OSError:
            continue
    return found


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return "?"


def temps(proj):
    dist = os.path.join(proj, "dist")
    hidden = [n for n in os.listdir(dist) if n.startswith(".")] if os.path.isdir(dist) else []
    bd = os.path.join(proj, "build")
    tmp = []
    for dp, _, fs in os.walk(bd):
        tmp += [os.path.join(dp, f) for f in fs if ".tmp." in f]
    return hidden + tmp


def env_for(tmp, marker):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    e.update(NO_COLOR="1", SOURCE_DATE_EPOCH="1700000000", CUWHEEL_MATRIX_CUDA="13.0",
             CUWHEEL_ARCHS="7.5", CUWHEEL_MATRIX_PYTHON="3.11,3.12", CUWHEEL_CCACHE="on",
             CUWHEEL_CACHE_DIR=os.path.join(tmp, "ccache"), CWTEST_SIGNAL_TRIAL=marker)
    return e


def have_tools():
    if not (os.path.exists("/usr/local/cuda-13.0/bin/nvcc") or shutil.which("nvcc")):
        return "nvcc 13.0", None
    if not shutil.which("ccache"):
        return "ccache", "ccache"
    pys = glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[12].*/bin/python3"))
    if len({p.split("/")[-3][:4] for p in pys}) < 2:
        return "the pyenv Pythons 3.11 and 3.12", None
    return None, None


def main():
    missing, ci_pkg = have_tools()
    if missing:
        return testskip.skip_code(f"needs {missing}", ci_installs=ci_pkg)
    n = int(os.environ.get("SIGNAL_TRIALS", "100"))
    print(f"seed {SEED}, {n} trials", flush=True)
    t_start = time.time()
    with tempfile.TemporaryDirectory(prefix="cuwheel-signals-") as tmp:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for x in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
            s = os.path.join(ROOT, "examples", "tinyraster", x)
            (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(proj, x))
        binding = os.path.join(proj, "bindings", "tinyraster.c")
        pristine = open(binding).read()
        dist = os.path.join(proj, "dist")
        cmd = [CUWHEEL, "build", "--no-test", "-j", "2", "--progress", "plain"]
        e = env_for(tmp, f"{tmp}-reference")
        r = subprocess.run(cmd, cwd=proj, env=e, capture_output=True, text=True)
        check("the uninterrupted build", r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:])
        if r.returncode:
            return 1
        baseline = wheels(dist)
        shutil.rmtree(os.path.join(proj, "build"))
        t0 = time.time()
        subprocess.run(cmd, cwd=proj, env=e, capture_output=True)
        clean_s = time.time() - t0
        print(f"baseline: {len(baseline)} wheels; a clean rebuild with ccache: {clean_s:.1f}s",
              flush=True)

        def rerun(label):
            with open(binding, "w") as f:
                f.write(pristine)
            r = subprocess.run(cmd, cwd=proj, env=env_for(tmp, f"{tmp}-rerun"),
                               capture_output=True, text=True)
            check(f"{label}: the re-run succeeds", r.returncode == 0, r.stderr[-2000:])
            got = wheels(dist)
            check(f"{label}: the re-run gives byte-identical wheels", got == baseline,
                  f"{sorted(got)} vs {sorted(baseline)}")

        counts = {}
        for i in range(n):
            sig = SIGS[i % 4]
            to_group = (i // 4) % 2 == 1
            if i % 3 == 0:  # clean build dir: the signal lands in probes, nvcc, ar, links...
                shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
                delay = RNG.uniform(0.02, clean_s * 0.95)
            else:  # a binding edit and some wheels gone: links, packing, audit, placing
                with open(binding, "a") as f:
                    f.write(f"\n/* trial {i} */\n")
                for w in RNG.sample(sorted(baseline), RNG.randint(0, len(baseline))):
                    if os.path.exists(os.path.join(dist, w)):
                        os.remove(os.path.join(dist, w))
                delay = RNG.uniform(0.02, clean_s * 0.6)
            marker = f"{tmp}-trial-{i}"
            label = (f"trial {i} ({sig.name} to the {'group' if to_group else 'process'} at "
                     f"{delay:.2f}s)")
            p = subprocess.Popen(cmd, cwd=proj, env=env_for(tmp, marker),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 start_new_session=True)
            try:
                p.wait(timeout=delay)
                finished = True
            except subprocess.TimeoutExpired:
                finished = False
                (os.killpg if to_group else os.kill)(p.pid, sig)
            try:
                _, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
                check(f"{label}: cuwheel exits within 120 s", False)
            at_exit = wheels(dist)
            left = marked(marker)
            if sig == signal.SIGKILL or finished:
                for pid in left:  # documented: a SIGKILLed cuwheel cannot stop its children
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                for _ in range(300):
                    if not marked(marker):
                        break
                    time.sleep(0.1)
                # A SIGKILLed cuwheel cannot remove its temp files (documented): clear them,
                # so the next trials are judged on their own leftovers only.
                if sig == signal.SIGKILL and not finished:
                    for f in temps(proj):
                        p_ = f if os.path.isabs(f) else os.path.join(dist, f)
                        if os.path.isdir(p_):
                            shutil.rmtree(p_, ignore_errors=True)
                        elif os.path.exists(p_):
                            os.remove(p_)
            else:
                check(f"{label}: no process of the build outlives cuwheel", not left,
                      "; ".join(f"{q}: {cmdline(q)}" for q in left))
                time.sleep(1.5)
                later = wheels(dist)
                check(f"{label}: no wheel appears in dist/ after cuwheel exits",
                      later == at_exit, f"at exit {sorted(at_exit)}, later {sorted(later)}")
                t = temps(proj)
                check(f"{label}: no temp file left", not t, str(t))
            for w, d in wheels(dist).items():
                check(f"{label}: {w} is complete and identical to the uninterrupted build's",
                      baseline.get(w) == d)
            text = err.decode(errors="replace")
            for bad in ("AddressSanitizer", "runtime error:"):
                check(f"{label}: no sanitizer report", bad not in text, text[-2000:])
            kind = "finished" if finished else sig.name
            counts[kind] = counts.get(kind, 0) + 1
            if i % 10 == 9:
                rerun(f"after trial {i}")
        rerun("at the end")
    took = time.time() - t_start
    print(f"{n} trials in {took:.0f}s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)
    if FAILS:
        print(f"{len(FAILS)} failures (seed {SEED})")
        return 1
    print("no process outlived cuwheel (but after SIGKILL), no late or partial wheel, no temp "
          "file, re-runs byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
