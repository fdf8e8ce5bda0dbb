"""checks: how the integration scripts report and run commands, in one place.

check(cond, what) prints `ok   what` or `FAIL what`, keeps the failures (in `failures`, a list
the script reads at its end) and returns cond; run(argv, **kw) runs a command and returns its
exit status and its output, stdout and stderr together, as text; in_tmp(name, body) runs a
test's body in a temporary directory it removes when every check held; write(path, text) writes
a fixture file, making its directories; expect(cond, what, out) is check printing out's tail
on a failure; online() says whether Debian's archive and PyPI answer; elf_machine(data) reads
an ELF file's e_machine (183 for aarch64)."""
import os
import shutil
import socket
import subprocess
import tempfile

failures = []


def check(cond, what):
    """Prints whether what holds; a failure is kept in `failures`. Returns cond."""
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def expect(cond, what, out=""):
    """check(cond, what), printing the output's tail when it failed."""
    if not check(cond, what) and out:
        print(str(out)[-4000:], flush=True)
    return cond


def online():
    """Whether deb.debian.org and pypi.org accept a connection (10 s each)."""
    for host, port in (("deb.debian.org", 80), ("pypi.org", 443)):
        try:
            socket.create_connection((host, port), timeout=10).close()
        except OSError:
            return False
    return True


def elf_machine(data):
    """e_machine of an ELF file's bytes (62 x86_64, 183 aarch64), or None."""
    return int.from_bytes(data[18:20], "little") if data[:4] == b"\x7fELF" else None


def write(path, text):
    """Writes text to path, making its directories."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(argv, **kw):
    """(exit status, stdout+stderr as text) of argv; kw as for subprocess.run, which may
    override the capture."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("text", True)
    p = subprocess.run(argv, **kw)
    return p.returncode, p.stdout or ""


def in_tmp(name, body):
    """Runs body(tmp) in a fresh temporary directory (prefix cuwheel-NAME-), removes it when every
    check held and keeps it, naming it, otherwise; prints NAME: OK or the count of failures.
    Returns the exit status: 1 when a check failed, else 0."""
    tmp = tempfile.mkdtemp(prefix=f"cuwheel-{name}-")
    try:
        body(tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"{name}: kept {tmp}")
    print("%s: %s" % (name, "%d failure(s)" % len(failures) if failures else "OK"))
    return 1 if failures else 0
