"""Progress of `cuwheel build`: redrawn in place in a pseudo-terminal, append-only lines in a
pipe, and under GitHub Actions a group per cell, an annotation at a planted compile error's
file and line, and the step summary. A real small matrix: CUDA 13.0, sm_75, two Pythons."""
import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time

CUWHEEL = os.environ["CUWHEEL"]
SRC = os.environ.get("CUWHEEL_SOURCE_DIR", os.getcwd())
CELLS = ["cp310-abi3-cu130-linux_x86_64", "cp311-cu130-linux_x86_64",
         "cp312-cu130-linux_x86_64"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def fail(msg, out=""):
    print(f"FAIL: {msg}\n--- output ---\n{out[-6000:]}", file=sys.stderr)
    sys.exit(1)


def base_env(tmp):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY",
                        "GITHUB_WORKSPACE")}
    env.update(CUWHEEL_ARCHS="7.5", CUWHEEL_MATRIX_CUDA="13.0",
               CUWHEEL_MATRIX_PYTHON="3.11 3.12", CUWHEEL_CCACHE="off", TMPDIR=tmp)
    env.pop("CUWHEEL_MATRIX_TORCH", None)
    return env


def copy_project(dest):
    os.makedirs(dest)
    for name in ("pyproject.toml", "LICENSE"):
        shutil.copy(os.path.join(SRC, "examples", "tinyraster", name), dest)
    for name in ("kernels", "bindings", "python"):
        shutil.copytree(os.path.join(SRC, "examples", "tinyraster", name), os.path.join(dest, name),
                        ignore=shutil.ignore_patterns("__pycache__"))


def run_in_pty(args, cwd, env):
    """Runs args with stdout and stderr on a 40x160 pseudo-terminal; returns (rc, output)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    env = dict(env, TERM="xterm")
    p = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(), b"".join(chunks).decode("utf-8", "replace")


def test_tty(proj, env):
    rc, out = run_in_pty([CUWHEEL, "build", "--no-test"], proj, env)
    if rc != 0:
        fail(f"build in a terminal exited {rc}", out)
    # In place: the live area moves the cursor up to redraw, and clears to the line's end.
    if not re.search(r"\x1b\[\d+F", out) or "\x1b[K" not in out:
        fail("no cursor movement: the progress was not redrawn in place", out)
    plain = ANSI.sub("", out)
    if "compiling" not in plain:
        fail("no row was ever shown compiling", out)
    # The last frame holds every row, finished: what follows the last cursor movement.
    ups = list(re.finditer(r"\x1b\[\d+F", out))
    frame = ANSI.sub("", out[ups[-1].end():])
    for row in CELLS + ["kernels CUDA 13.0"]:
        if not re.search(rf"^\s+{re.escape(row)}\s+ok\s", frame, re.M):
            fail(f"the last frame does not show {row} ok", frame)
    if not re.search(r"\[(\d+)/\1 steps\]", frame):
        fail("the last frame does not count every step done", frame)
    print("ok: terminal progress redrawn in place; every row ends ok")


def run_pipe(args, cwd, env):
    p = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def test_plain(proj, env):
    os.utime(os.path.join(proj, "bindings", "tinyraster.c"))
    rc, out = run_pipe([CUWHEEL, "build", "--no-test"], proj, env)
    if rc != 0:
        fail(f"build in a pipe exited {rc}", out)
    if "\x1b[" in out:
        fail("escape sequences in plain mode", out)
    for cell in CELLS:
        for pat in (rf"^\s*[\d.]+s \[{cell}\] started cc \S*bindings/tinyraster\.c$",
                    rf"^\s*[\d.]+s \[{cell}\] cc \S*bindings/tinyraster\.c \([\d.]+s\)$",
                    rf"^\s*[\d.]+s \[{cell}\] started link ",
                    rf"^\s*[\d.]+s \[{cell}\] audit \([\d.]+s\)$",
                    rf"^\s*[\d.]+s \[{cell}\] ok "):
            if not re.search(pat, out, re.M):
                fail(f"plain mode: no line matching {pat!r}", out)
    if re.search(r"\] nvcc ", out):
        fail("an edit of the binding recompiled kernels", out)
    # Append-only: the timestamps never go back.
    stamps = [float(m) for m in re.findall(r"^\s*([\d.]+)s \[", out, re.M)]
    if stamps != sorted(stamps):
        fail("plain lines are not in time order", out)
    print("ok: plain mode prints a line per step start and end, with the cell id")


def plant_error(proj):
    path = os.path.join(proj, "bindings", "tinyraster.c")
    with open(path) as f:
        lines = f.read().split("\n")
    if lines[-1] == "":
        lines.pop()
    lines.append("int cuwheel_planted_error = ;")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines)


def test_failure_block(proj, env, line):
    rc, out = run_pipe([CUWHEEL, "build", "--no-test", "-k"], proj, env)
    if rc == 0:
        fail("the planted error did not fail the build", out)
    for cell in CELLS:
        # The compiler's message once, indented under the cell's FAILED line.
        m = re.search(rf"^\s*[\d.]+s \[{cell}\] FAILED cc .*\n((?:    .*\n)+)", out, re.M)
        if not m:
            fail(f"no FAILED block under {cell}", out)
        if f"tinyraster.c:{line}:" not in m.group(1):
            fail(f"the block under {cell} lacks the compiler error at line {line}", out)
    errors = re.findall(rf"tinyraster\.c:{line}:\d+: error", out)
    if len(errors) != len(CELLS):
        fail(f"the compiler error is shown {len(errors)} times for {len(CELLS)} cells", out)
    print("ok: a failing step's output is shown once, under its cell")


def md_text(s):
    """A regex for s as the step summary writes it: Markdown-escaped text, so the '_' of a cell
    id or a wheel's platform tag comes as '\\_' (base/escape.h, ESC_MARKDOWN)."""
    return re.escape(s).replace("_", r"\\_")


def test_github(proj, env, line, tmp):
    summary = os.path.join(tmp, "summary.md")
    open(summary, "w").close()
    env = dict(env, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=summary,
               GITHUB_WORKSPACE=proj, CI="true")
    rc, out = run_pipe([CUWHEEL, "build", "--no-test", "-k"], proj, env)
    if rc == 0:
        fail("the planted error did not fail the build", out)
    for cell in CELLS:
        m = re.search(rf"^::group::{cell}\b[^\n]*\n(.*?)^::endgroup::$", out, re.M | re.S)
        if not m:
            fail(f"no group for {cell}", out)
        if f"tinyraster.c:{line}:" not in m.group(1):
            fail(f"the group of {cell} lacks the compiler output", out)
    ann = re.findall(rf"^::error file=bindings/tinyraster\.c,line={line},col=\d+::(.*)$",
                     out, re.M)
    if len(ann) != len(CELLS):
        fail(f"expected {len(CELLS)} annotations at bindings/tinyraster.c:{line}", out)
    if "expected expression" not in ann[0]:
        fail("the annotation does not carry the compiler's message", out)
    with open(summary) as f:
        md = f.read()
    if "| cell | result | wheel | size | time |" not in md:
        fail("no summary table in $GITHUB_STEP_SUMMARY", md)
    for cell in CELLS:
        if not re.search(rf"^\| {md_text(cell)} \| \*\*FAILED\*\* \|", md, re.M):
            fail(f"the summary does not show {cell} failed", md)
    if not re.search(r"^\| kernels CUDA 13\.0 \| ok \|", md, re.M):
        fail("the summary does not show the kernel archive ok", md)
    print("ok: GitHub Actions groups, annotations at the planted error, step summary")


def test_github_ok(proj, env, tmp):
    summary = os.path.join(tmp, "summary-ok.md")
    env = dict(env, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=summary,
               GITHUB_WORKSPACE=proj, CI="true")
    rc, out = run_pipe([CUWHEEL, "build", "--no-test"], proj, env)
    if rc != 0:
        fail(f"the fixed build exited {rc}", out)
    with open(summary) as f:
        md = f.read()
    for cell in CELLS:
        whl = r"tinyraster-0\.1\.0\+cu130-[^ |]+\.whl"
        if not re.search(rf"^\| {md_text(cell)} \| ok \| {whl} \| [\d.]+ kB \| [\d.]+s \|$",
                         md, re.M):
            fail(f"the summary does not show {cell}'s wheel, size and time", md)
    print("ok: the step summary names each wheel, its size and time")


def main():
    tmp = tempfile.mkdtemp(prefix="cuwheel-progress.")
    try:
        proj = os.path.join(tmp, "proj")
        copy_project(proj)
        env = base_env(tmp)
        test_tty(proj, env)
        test_plain(proj, env)
        src = os.path.join(proj, "bindings", "tinyraster.c")
        good = open(src).read()
        line = plant_error(proj)
        test_failure_block(proj, env, line)
        test_github(proj, env, line, tmp)
        with open(src, "w") as f:
            f.write(good)
        test_github_ok(proj, env, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
