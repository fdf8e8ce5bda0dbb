"""checks: how the integration scripts report and run commands, in one place.

check(cond, what) prints `ok   what` or `FAIL what`, keeps the failures (in `failures`, a list
the script reads at its end) and returns cond; run(argv, **kw) runs a command and returns its
exit status and its output, stdout and stderr together, as text."""
import subprocess

failures = []


def check(cond, what):
    """Prints whether what holds; a failure is kept in `failures`. Returns cond."""
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def run(argv, **kw):
    """(exit status, stdout+stderr as text) of argv; kw as for subprocess.run, which may
    override the capture."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("text", True)
    p = subprocess.run(argv, **kw)
    return p.returncode, p.stdout or ""
