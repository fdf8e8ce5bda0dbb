#!/usr/bin/env python3
"""test_interrupt.py: SIGINT, SIGTERM and SIGKILL at random moments of a matrix build
(tinyraster, 2 Pythons + abi3, CUDA 13.0, arch 7.5) and of `cuwheel pack` on a large tree,
many times. After every trial: every wheel in dist/ is complete and byte-identical to the one
an uninterrupted build wrote (so none is partial, and none built earlier was touched), a wheel
that does not belong to the build stays byte-untouched, and no temp file is visible in dist/
(after SIGKILL a hidden .name.tmp.* may remain: the next pack of that wheel removes it, and so
does the end of a build that finds the wheel up to date; a later trial is judged on the temp
files it adds). Then a re-run completes, gives byte-identical wheels and leaves no temp file. Prints the trial counts.

Environment: CUWHEEL (the binary), INTERRUPT_BUILD_TRIALS / INTERRUPT_PACK_TRIALS (default 24
and 18), INTERRUPT_SEED. The build trials are skipped (exit 77 after the pack trials pass, testskip.py) when nvcc 13.0 or two Pythons are missing
for the build part."""
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
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL", "build/hard/cuwheel"))
SEED = int(os.environ.get("INTERRUPT_SEED", str(int(time.time()))))
RNG = random.Random(SEED)
SIGS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
FAILS = []
BYSTANDER = "bystander-1.0-py3-none-any.whl"


def check(what, ok, detail=""):
    if not ok:
        FAILS.append(what)
        print(f"FAIL {what} {detail}")


def env(**kw):
    e = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    e.update(NO_COLOR="1", SOURCE_DATE_EPOCH="1700000000", **kw)
    return e


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def wheels(dist):
    return {os.path.basename(p): digest(p) for p in glob.glob(os.path.join(dist, "*.whl"))}


def record_ok(path):
    """zipfile's CRC test plus RECORD verification (hash and size of every member)."""
    import base64
    import csv
    import io
    with zipfile.ZipFile(path) as z:
        if z.testzip() is not None:
            return False
        rec = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]
        if len(rec) != 1:
            return False
        rows = {r[0]: r for r in csv.reader(io.StringIO(z.read(rec[0]).decode())) if r}
        for n in z.namelist():
            if n == rec[0] or n.endswith("/"):
                continue
            data = z.read(n)
            h = "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if n not in rows or rows[n][1] != h or rows[n][2] != str(len(data)):
                return False
    return True


def hidden_files(dist):
    return {n for n in os.listdir(dist) if n.startswith(".")} if os.path.isdir(dist) else set()


def inspect(label, dist, baseline, bystander_digest, sig, before):
    """Checks dist/ after an interrupted run; before: the hidden files dist/ held before it
    (an earlier SIGKILLed trial's temp file stays until its wheel is written again or a build
    ends, and is not this trial's)."""
    names = os.listdir(dist)
    visible_tmp = [n for n in names if not n.startswith(".") and not n.endswith(".whl")]
    check(f"{label}: no visible temp file in dist/", not visible_tmp, str(visible_tmp))
    hidden = [n for n in names if n.startswith(".")]
    if sig != signal.SIGKILL:
        new = sorted(set(hidden) - before)
        check(f"{label}: no hidden temp file left by {sig.name}", not new, str(new))
    for n, d in wheels(dist).items():
        if n == BYSTANDER:
            check(f"{label}: bystander wheel untouched", d == bystander_digest)
            continue
        check(f"{label}: {n} is a wheel of the build", n in baseline, str(sorted(baseline)))
        if n in baseline and d != baseline[n]:
            check(f"{label}: {n} complete and identical to the uninterrupted build", False,
                  "zip/RECORD " + ("ok" if record_ok(os.path.join(dist, n)) else "BROKEN"))
    check(f"{label}: bystander wheel still there", os.path.exists(os.path.join(dist, BYSTANDER)))
    return len(hidden)


def put_bystander(dist):
    os.makedirs(dist, exist_ok=True)
    p = os.path.join(dist, BYSTANDER)
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("bystander/__init__.py", "x = 1\n")
    return digest(p)


def marked(marker):
    """Pids of live (not zombie) processes whose environment holds marker."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open(f"/proc/{d}/stat") as f:
                if f.read().split(") ")[-1].startswith("Z"):
                    continue
            found.append(int(d))
        except OSError:
            continue
    return found


def interrupt(cmd, cwd, e, delay, sig):
    """Starts cmd, sends sig after delay seconds (if still running). Returns (rc, stderr)."""
    e = dict(e, CWTEST_INTERRUPT_TRIAL=f"interrupt-{os.getpid()}-{time.time()}")
    p = subprocess.Popen(cmd, cwd=cwd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        # The signal goes to cuwheel alone, as `kill PID` would: its children (ninja, nvcc)
        # notice through their own pipes or are reaped by the next build.
        p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        check(f"{' '.join(cmd[1:3])}: exits within 120 s of {sig.name}", False)
    # Reap what a SIGKILLed cuwheel leaves behind (ninja, nvcc: each child runs in a process
    # group of its own, so the group's kill does not reach them): every process of the run
    # carries the marker in its environment. A later trial must not meet them in its dirs.
    for _ in range(300):
        left = marked(e["CWTEST_INTERRUPT_TRIAL"])
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    text = err.decode(errors="replace")
    for bad in ("AddressSanitizer", "runtime error:"):
        check(f"no sanitizer report ({bad})", bad not in text, text[-2000:])
    return p.returncode, text


def have_build_tools():
    if not (os.path.exists("/usr/local/cuda-13.0/bin/nvcc") or shutil.which("nvcc")):
        return False
    pys = glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[12].*/bin/python3"))
    return len({p.split("/")[-3][:4] for p in pys}) >= 2


def build_trials(tmp, n):
    proj = os.path.join(tmp, "proj")
    os.makedirs(proj)
    for x in ("pyproject.toml", "LICENSE", "kernels", "bindings", "python"):
        s = os.path.join(ROOT, "examples", "tinyraster", x)
        (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, os.path.join(proj, x))
    e = env(CUWHEEL_MATRIX_CUDA="13.0", CUWHEEL_ARCHS="7.5", CUWHEEL_MATRIX_PYTHON="3.11,3.12",
            CUWHEEL_CACHE_DIR=os.path.join(tmp, "cache"))
    cmd = [CUWHEEL, "build", "--no-test", "-j", "2"]
    dist = os.path.join(proj, "dist")
    t0 = time.time()
    r = subprocess.run(cmd, cwd=proj, env=e, capture_output=True, text=True)
    full = time.time() - t0
    check("uninterrupted build", r.returncode == 0, r.stderr[-3000:])
    baseline = wheels(dist)
    check("uninterrupted build wrote 3 wheels", len(baseline) == 3, str(baseline))
    for w in baseline:
        check(f"baseline {w} passes zip/RECORD checks", record_ok(os.path.join(dist, w)))
    by = put_bystander(dist)
    done = 0
    for i in range(n):
        sig = SIGS[i % 3]
        # Alternate: a build from a clean build dir (interrupts land in nvcc, ar, links,
        # packing) and a rebuild after a binding edit (interrupts land in packing/renaming).
        if i % 4 == 0:
            shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
            delay = RNG.uniform(0.05, full * 0.9)
        else:
            with open(os.path.join(proj, "bindings", "tinyraster.c"), "a") as f:
                f.write(f"\n/* trial {i} */\n")
            for w in RNG.sample(sorted(baseline), RNG.randint(0, 2)):
                if os.path.exists(os.path.join(dist, w)):
                    os.remove(os.path.join(dist, w))
            delay = RNG.uniform(0.05, 6.0)
        before = hidden_files(dist)
        rc, err = interrupt(cmd, proj, e, delay, sig)
        inspect(f"build trial {i} ({sig.name} at {delay:.2f}s, rc {rc})", dist, baseline, by, sig,
                before)
        done += 1
    # What a SIGKILLed pack leaves, for a wheel the re-run may find up to date: the build's
    # end removes it all the same.
    stale = os.path.join(dist, "." + sorted(baseline)[0] + ".tmp.Zq3xYw")
    with open(stale, "wb") as f:
        f.write(b"PK\x03\x04 half a wheel")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    # Undo the binding edits: the re-run must give exactly the uninterrupted wheels.
    shutil.copy(os.path.join(ROOT, "examples", "tinyraster", "bindings", "tinyraster.c"),
                os.path.join(proj, "bindings", "tinyraster.c"))
    r = subprocess.run(cmd, cwd=proj, env=e, capture_output=True, text=True)
    check("re-run after the interrupted builds", r.returncode == 0, r.stderr[-3000:])
    after = {k: v for k, v in wheels(dist).items() if k != BYSTANDER}
    check("re-run gives byte-identical wheels", after == baseline,
          f"{sorted(after)} vs {sorted(baseline)}")
    hidden = [x for x in os.listdir(dist) if x.startswith(".")]
    check("no temp file left in dist/ after the re-run", not hidden, str(hidden))
    return done


def pack_trials(tmp, n):
    proj = os.path.join(tmp, "packproj")
    stage = os.path.join(tmp, "stage")
    os.makedirs(os.path.join(stage, "big"))
    os.makedirs(proj)
    os.makedirs(os.path.join(proj, "src"))
    os.makedirs(os.path.join(proj, "big"))
    with open(os.path.join(proj, "src", "ext.c"), "w") as f:
        f.write("int big;\n")
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write('[project]\nname = "big"\nversion = "1.0"\n[tool.cuwheel]\npackages = ["big"]\n'
                '[tool.cuwheel.extension]\n'
                'module = "big._C"\nsources = ["src/ext.c"]\n')
    rng = random.Random(1)
    for k in range(24):  # ~72 MB, a third random
        with open(os.path.join(stage, "big", f"part{k:02d}.bin"), "wb") as f:
            f.write(rng.randbytes(1 << 20) * 1 + bytes(2 << 20))
    dist = os.path.join(tmp, "packdist")
    cmd = [CUWHEEL, "-C", proj, "pack", stage, "--tag", "py3-none-any", "--purelib", "-o", dist]
    e = env()
    t0 = time.time()
    r = subprocess.run(cmd, env=e, capture_output=True, text=True)
    full = time.time() - t0
    check("uninterrupted pack", r.returncode == 0, r.stderr)
    baseline = wheels(dist)
    for w in baseline:
        check("baseline pack passes zip/RECORD checks", record_ok(os.path.join(dist, w)))
    by = put_bystander(dist)
    done = 0
    for i in range(n):
        sig = SIGS[i % 3]
        if i % 2 == 0:  # half the time the wheel is already there and must survive intact
            for w in baseline:
                if os.path.exists(os.path.join(dist, w)):
                    os.remove(os.path.join(dist, w))
        delay = RNG.uniform(0.01, full * 1.1)
        before = hidden_files(dist)
        rc, err = interrupt(cmd, None, e, delay, sig)
        inspect(f"pack trial {i} ({sig.name} at {delay:.2f}s, rc {rc})", dist, baseline, by, sig,
                before)
        done += 1
    r = subprocess.run(cmd, env=e, capture_output=True, text=True)
    check("pack re-run", r.returncode == 0, r.stderr)
    after = {k: v for k, v in wheels(dist).items() if k != BYSTANDER}
    check("pack re-run gives the byte-identical wheel", after == baseline)
    hidden = [x for x in os.listdir(dist) if x.startswith(".")]
    check("the re-run removed the temp files SIGKILL left", not hidden, str(hidden))
    return done, full


def main():
    print(f"seed {SEED}")
    nb = int(os.environ.get("INTERRUPT_BUILD_TRIALS", "24"))
    npk = int(os.environ.get("INTERRUPT_PACK_TRIALS", "18"))
    t0 = time.time()
    skipped = 0
    with tempfile.TemporaryDirectory(prefix="cuwheel-interrupt-") as tmp:
        pk, pack_s = pack_trials(tmp, npk)
        print(f"pack: {pk} trials (uninterrupted pack {pack_s:.1f}s)")
        if have_build_tools():
            bt = build_trials(tmp, nb)
            print(f"build: {bt} trials")
        else:
            bt = 0
            skipped = testskip.skip_code("build trials (needs nvcc 13.0 and Pythons 3.11 and 3.12)")
    total = pk + bt
    if FAILS:
        print(f"{len(FAILS)} problems in {total} interruption trials")
        return 1
    print(f"{total} interruption trials ({pk} pack, {bt} build; SIGINT/SIGTERM/SIGKILL at random "
          f"moments) in {time.time() - t0:.0f}s: nothing partial, nothing lost, re-runs "
          f"byte-identical")
    return skipped


if __name__ == "__main__":
    sys.exit(main())
