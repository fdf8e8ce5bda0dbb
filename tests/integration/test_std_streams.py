#!/usr/bin/env python3
"""test_std_streams.py: closed standard streams and a closed reader (issue 25, class 8), on a
real build of tinyraster (CUDA 13.0, sm_75, Python 3.12, no ccache, a fresh build dir):
  - `cuwheel build >&- 2>&-` (and with stdin closed too): the lock file does not take fd 1, so
    build/cuwheel/.cuwheel.lock holds only the pid cuwheel writes there, the build succeeds
    and the wheels are in dist/; likewise `cuwheel plan` with fds 0-2 closed exits 0;
  - `cuwheel build | head -1`: cuwheel gets SIGPIPE at its next progress line and stops the
    build as SIGTERM would: when it has exited no process of the build is left (every process
    started for it carries a marker in its environment; /proc is searched), and no wheel
    appears in dist/ afterwards (dist/ read at exit and again once every marked process is gone,
    at most 120 s later, and 2 s after that).
Needs nvcc 13.0 and the pyenv Python 3.12; skipped (77) without them."""
import glob
import os
import re
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
FAILS = []


def check(what, ok, detail=""):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what} {detail}"[:3000], flush=True)


def marked(marker):
    """Pids of live (not zombie) processes whose environment holds marker."""
    found = []
    needle = marker.encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle not in f.read():
                    continue
            with open(f"/proc/{d}/stat") as s:
                if s.read().split(") ")[-1].startswith("Z"):
                    continue
            found.append(int(d))
        except OSError:
            continue
    return found


def wheels(dist):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(dist, "*.whl")))


def env_for(tmp, marker):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    e.update(NO_COLOR="1", SOURCE_DATE_EPOCH="1700000000", CUWHEEL_MATRIX_CUDA="13.0",
             CUWHEEL_ARCHS="7.5", CUWHEEL_MATRIX_PYTHON="3.12", CUWHEEL_CCACHE="off",
             CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"), CWTEST_STREAMS=marker)
    return e


def closed_streams(tmp, proj):
    dist = os.path.join(proj, "dist")
    lock = os.path.join(proj, "build", "cuwheel", ".cuwheel.lock")
    for label, redir in (("stdout and stderr closed", '>&- 2>&-'),
                         ("fds 0-2 closed", '<&- >&- 2>&-')):
        shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
        shutil.rmtree(dist, ignore_errors=True)
        r = subprocess.run(["sh", "-c", f'exec "$0" build --no-test --progress plain {redir}',
                            CUWHEEL], cwd=proj, env=env_for(tmp, f"{tmp}-closed"),
                           timeout=900)
        check(f"{label}: the build succeeds", r.returncode == 0, f"exit {r.returncode}")
        held = open(lock, "rb").read() if os.path.exists(lock) else None
        size = -1 if held is None else len(held)
        check(f"{label}: the lock file holds only the holder's pid, no output",
              held is not None and re.fullmatch(rb"\d+\n?", held) is not None, repr(held))
        check(f"{label}: the wheels are in dist/", len(wheels(dist)) >= 1, str(wheels(dist)))
        print(f"{label}: exit {r.returncode}, lock file {size} bytes, "
              f"{len(wheels(dist))} wheels", flush=True)
    r = subprocess.run(["sh", "-c", 'exec "$0" plan <&- >&- 2>&-', CUWHEEL], cwd=proj,
                       env=env_for(tmp, f"{tmp}-plan"), timeout=300)
    check("plan with fds 0-2 closed exits 0", r.returncode == 0, f"exit {r.returncode}")


def closed_reader(tmp, proj):
    dist = os.path.join(proj, "dist")
    shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
    shutil.rmtree(dist, ignore_errors=True)
    marker = f"{tmp}-pipe"
    err = open(os.path.join(tmp, "pipe.err"), "w+b")
    p = subprocess.Popen([CUWHEEL, "build", "--no-test", "--progress", "plain"], cwd=proj,
                         env=env_for(tmp, marker), stdout=subprocess.PIPE, stderr=err,
                         start_new_session=True)
    first = p.stdout.readline()  # `| head -1`
    p.stdout.close()
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        check("cuwheel exits within 120 s of its reader closing", False)
    at_exit = wheels(dist)
    left = marked(marker)
    check("cuwheel dies of SIGPIPE (as `| head -1` makes it)", rc == -signal.SIGPIPE,
          f"exit {rc}")
    check("no process of the build outlives cuwheel", not left, str(left))
    for _ in range(1200):  # an orphaned ninja would go on and place the wheel
        if not marked(marker):
            break
        time.sleep(0.1)
    time.sleep(2)
    later = wheels(dist)
    check("no wheel appears in dist/ after cuwheel exited", later == at_exit,
          f"{at_exit} at exit, {later} later")
    for pid in marked(marker):
        os.kill(pid, signal.SIGKILL)
    err.seek(0)
    text = err.read()
    for bad in (b"AddressSanitizer", b"LeakSanitizer", b"runtime error:"):
        check("no sanitizer report from the closed-reader build", bad not in text, text[-1500:])
    print(f"closed reader: first line {first[:60]!r}, exit {rc}, {len(left)} processes left, "
          f"wheels at exit {at_exit}, later {later}", flush=True)


def main():
    if not (os.path.exists("/usr/local/cuda-13.0/bin/nvcc")):
        return testskip.skip_code("needs nvcc 13.0")
    if not glob.glob(os.path.expanduser("~/.pyenv/versions/3.12.*/bin/python3")):
        return testskip.skip_code("needs the pyenv Python 3.12")
    with tempfile.TemporaryDirectory(prefix="cuwheel-streams-") as tmp:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for x in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
            s = os.path.join(ROOT, "examples", "tinyraster", x)
            (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(proj, x))
        closed_reader(tmp, proj)
        closed_streams(tmp, proj)
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("closed streams and a closed reader: no output in the lock, nothing outlives cuwheel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
