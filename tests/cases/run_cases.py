#!/usr/bin/env python3
"""run_cases.py: runs the table-driven bad-input cases under tests/cases/<area>/<case>/.

A case is a directory:
  pyproject.toml  the project's manifest (absent: the "no pyproject.toml" case)
  other files     copied over tests/cases/<area>/_fixture/ (sources, readme, ...) into a
                  fresh temporary project directory
  expect          line 1: the exit code; every further line is a substring that must
                  appear in stderr, except lines starting with
                    "stdout: " (must appear in stdout) and
                    "not: "    (must appear in neither stdout nor stderr), and the line
                    "inert"    (stdout and stderr hold no ESC, CR or C1 control, and no line
                               starting with "::", a forged workflow command: issue 25)
  env             optional KEY=VALUE lines added to the environment (every inherited
                  CUWHEEL_* variable is removed first, so a case sees only its own)
  args            optional cuwheel arguments, shell-quoted, on one line (default: plan)
  remove          optional fixture paths to delete before running
  generate.py     optional: run with python3 in the project directory after the copy, to make
                  inputs too big or too odd to commit (a 50 MB manifest, invalid UTF-8 bytes,
                  symlinks, a fake compiler); it is not copied into the project. It sees
                  $CUWHEEL (absolute), to set up a build dir with earlier runs

In args and env values, {proj} is replaced by the project directory's absolute path.

Usage: run_cases.py [AREA/CASE | CASE]...: with no argument every case, else only those named
(CTest registers each case as its own test, cases.AREA.CASE, which runs `run_cases.py AREA/CASE`:
tests/CMakeLists.txt lists the case directories when CMake configures).

cuwheel comes from $CUWHEEL (CTest sets it); the cwd must be the repository root. Prints
"N cases passed" and exits 0, or lists every failing case and exits 1; exits 2 when a name
given matches no case.
"""
import os
import shlex
import shutil
import subprocess
import sys

# CTest starts this script once per case (480 times a run): re and tempfile are imported only
# where needed, which halves the interpreter's start-up on two loaded cores.

HERE = os.path.dirname(os.path.abspath(__file__))


def load_case(path):
    with open(os.path.join(path, "expect"), encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    if not lines or not lines[0].strip().lstrip("-").isdigit():
        raise ValueError(f"{path}/expect: line 1 must be the exit code")
    code = int(lines[0])
    want = [l for l in lines[1:] if l.strip()]
    if not want and code != 0:
        raise ValueError(f"{path}/expect: a failing case must assert at least one message")
    env = {}
    env_path = os.path.join(path, "env")
    if os.path.exists(env_path):
        with open(env_path, encoding="utf-8") as f:
            for l in f:
                l = l.rstrip("\n")
                if l and not l.startswith("#"):
                    k, _, v = l.partition("=")
                    env[k] = v
    args = ["plan"]
    args_path = os.path.join(path, "args")
    if os.path.exists(args_path):
        with open(args_path, encoding="utf-8") as f:
            args = shlex.split(f.read())
    remove = []
    rm_path = os.path.join(path, "remove")
    if os.path.exists(rm_path):
        with open(rm_path, encoding="utf-8") as f:
            remove = [l.strip() for l in f if l.strip()]
    return code, want, env, args, remove


def run_case(cuwheel, area_dir, case_dir, tmp_root):
    code, want, env_add, args, remove = load_case(case_dir)
    name = os.path.relpath(case_dir, HERE)
    proj = os.path.join(tmp_root, name.replace(os.sep, "_"))
    fixture = os.path.join(area_dir, "_fixture")
    if os.path.isdir(fixture):
        shutil.copytree(fixture, proj)
    else:
        os.makedirs(proj)
    for r in remove:
        p = os.path.join(proj, r)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    for entry in os.listdir(case_dir):
        if entry in ("expect", "env", "args", "remove", "generate.py"):
            continue
        src = os.path.join(case_dir, entry)
        dst = os.path.join(proj, entry)
        if os.path.isdir(src):
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy(src, dst)
    gen = os.path.join(case_dir, "generate.py")
    if os.path.exists(gen):
        subprocess.run([sys.executable, gen], cwd=proj, check=True, timeout=120,
                       env=dict(os.environ, CUWHEEL=cuwheel))
    args = [a.replace("{proj}", proj) for a in args]
    env_add = {k: v.replace("{proj}", proj) for k, v in env_add.items()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUWHEEL_")}
    env["NO_COLOR"] = "1"
    # Probes are cached per project build dir; keep provisioned toolkits out of the way.
    env["CUWHEEL_CACHE_DIR"] = os.path.join(tmp_root, "cache")
    env.update(env_add)
    p = subprocess.run([cuwheel] + args, cwd=proj, env=env, capture_output=True, text=True,
                       errors="replace", timeout=300)
    problems = []
    for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        if bad in p.stderr:
            problems.append(f"sanitizer report ({bad})")
    if p.returncode != code:
        problems.append(f"exit code {p.returncode}, expected {code}")
    for w in want:
        if w.startswith("stdout: "):
            if w[8:] not in p.stdout:
                problems.append(f"stdout lacks {w[8:]!r}")
        elif w == "inert":
            import re
            for stream, text in (("stdout", p.stdout), ("stderr", p.stderr)):
                bad = re.search(r"[\x1b\r\x80-\x9f]|^[ \t]*::", text, re.M)
                if bad:
                    problems.append(f"{stream} is not inert: {bad.group(0)!r} at {bad.start()}")
        elif w.startswith("not: "):
            if w[5:] in p.stdout or w[5:] in p.stderr:
                problems.append(f"output has {w[5:]!r}, which it must not")
        elif w not in p.stderr:
            problems.append(f"stderr lacks {w!r}")
    return name, problems, p


def main():
    cuwheel = os.environ.get("CUWHEEL")
    if not cuwheel:
        sys.exit("run_cases.py: set CUWHEEL to the cuwheel binary")
    cuwheel = os.path.abspath(cuwheel)
    only = sys.argv[1:]
    cases = []
    for area in sorted(os.listdir(HERE)):
        area_dir = os.path.join(HERE, area)
        if not os.path.isdir(area_dir) or area.startswith(("_", ".")):
            continue
        for case in sorted(os.listdir(area_dir)):
            case_dir = os.path.join(area_dir, case)
            if case.startswith("_") or not os.path.isdir(case_dir):
                continue
            if only and case not in only and f"{area}/{case}" not in only:
                continue
            cases.append((area_dir, case_dir))
    named = {os.path.relpath(c, HERE) for _, c in cases} | {os.path.basename(c) for _, c in cases}
    unknown = [n for n in only if n not in named]
    if unknown:
        print("run_cases.py: no such case: " + ", ".join(unknown), file=sys.stderr)
        return 2
    failed = 0
    tmp = os.path.join(os.environ.get("TMPDIR") or "/tmp",
                       f"cuwheel-cases-{os.getpid()}-{os.urandom(4).hex()}")
    os.mkdir(tmp, 0o700)
    try:
        for area_dir, case_dir in cases:
            name, problems, p = run_case(cuwheel, area_dir, case_dir, tmp)
            # A 50 MB case must not pile up: each project is dropped once checked.
            shutil.rmtree(os.path.join(tmp, name.replace(os.sep, "_")), ignore_errors=True)
            if problems:
                failed += 1
                print(f"FAIL {name}: " + "; ".join(problems))
                print("  --- stderr ---\n  " + p.stderr.replace("\n", "\n  "))
                if p.stdout:
                    print("  --- stdout (head) ---\n  " +
                          "\n  ".join(p.stdout.splitlines()[:10]))
            elif os.environ.get("VERBOSE"):
                print(f"ok   {name}\n  " + p.stderr.replace("\n", "\n  "))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failed:
        print(f"{failed} of {len(cases)} cases failed")
        return 1
    print(f"{len(cases)} cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
