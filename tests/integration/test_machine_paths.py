"""No test or tool names a path of the machine it was written on: the tests run from any checkout
on any machine (CI's, a contributor's), so a path comes from the repository root (this file's
place, $CUWHEEL_SOURCE_DIR), `git worktree list`, or the environment ($HOME, $CUWHEEL_CACHE_DIR),
never as a literal like /work/main/build/... or /root/.cache/...

Reads every text file under tests/ and tools/ (golden files and fixtures' data left out: they
are outputs or inputs, not paths a test opens) and fails naming file:line for an absolute path
that starts with /work/ or /root/, or with this checkout's own root or this user's home as a
literal. Fails when it reads fewer files than the tests have (a walk that finds nothing must not
pass)."""
import os
import re
import sys

ROOT = os.path.abspath(os.environ.get("CUWHEEL_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPTS = (".py", ".sh", ".bash", ".c", ".h", ".cmake", ".txt", ".toml")
SKIP_DIRS = {"golden", "__pycache__"}
MIN_FILES = 100


def machine_roots():
    """The absolute path prefixes a test must not write out: this machine's."""
    roots = {"/work/", "/root/"}
    for p in (ROOT, os.path.expanduser("~")):
        if p and p != "/" and p.count("/") >= 2:
            roots.add(p.rstrip("/") + "/")
    return sorted(roots)


def main():
    # An absolute path begins after a quote, a blank, '=', ':', '(', ',' or '[' (not inside
    # another path: /opt/rh/gcc-toolset-N/root/usr/bin is the toolset's own tree).
    pat = re.compile(r"(?:^|[\s\"'=:(,\[])(" + "|".join(re.escape(r) for r in machine_roots()) +
                     r")")
    bad, n = [], 0
    for top in ("tests", "tools"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for f in sorted(files):
                if not f.endswith(SCRIPTS) and f not in ("expect", "args", "env"):
                    continue
                path = os.path.join(d, f)
                if f == os.path.basename(__file__):
                    continue  # this file names the prefixes it looks for
                n += 1
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for i, line in enumerate(fh, 1):
                        m = pat.search(line)
                        if m:
                            bad.append(f"{os.path.relpath(path, ROOT)}:{i}: {m.group(1)!r} in "
                                       f"{line.strip()[:120]}")
    print(f"{n} files read under tests/ and tools/")
    if n < MIN_FILES:
        print(f"FAIL: only {n} files read; the walk went wrong")
        return 1
    for b in bad:
        print("FAIL: a path of this machine:", b)
    if bad:
        return 1
    print("no test or tool names a path of this machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
