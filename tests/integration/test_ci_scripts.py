"""The CI job scripts are real files, checked as shell.

- Every ci/*.sh passes shellcheck (bash), run after the scripts its "# after:" line names, as
  the workflow writer joins them (ci/github_steps.c, gh_script); each is embedded (listed in
  ci/github_internal.h's CI_SCRIPTS), so none is dead.
- No C string literal in ci/*.c holds more than MAX_SHELL_LINES lines of shell: a longer
  script is a file under ci/ (docs/design.md; the house style's "helper scripts are real
  files"). A literal counts as shell when its lines are not YAML (keys, items, comments).
- A script file fails the check when planted as a literal (the test proves it can fail)."""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testskip import skip  # noqa: E402

ROOT = os.getcwd()
CI = os.path.join(ROOT, "ci")
MAX_SHELL_LINES = 3
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)
    return cond


def joined(path):
    """The script as a step runs it: the scripts of its "# after:" line first."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"^# after: (.*)$", text, re.M)
    before = ""
    for name in (m.group(1).split() if m else []):
        with open(os.path.join(CI, name)) as f:
            before += f.read()
    return before + text


# Adjacent C string literals (one group), and what one says unescaped.
LITERAL = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+')
YAML_LINE = re.compile(r"^\s*(#.*|[A-Za-z_][\w.-]*:( .*)?|- .*|)$")


def shell_lines(c_text):
    """[(line number, shell line count, first line)] for each literal group of c_text with
    more than MAX_SHELL_LINES lines of shell."""
    out = []
    code = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), c_text, flags=re.S)
    for m in LITERAL.finditer(code):
        parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(0))
        text = "".join(parts).encode().decode("unicode_escape")
        lines = [ln for ln in text.split("\n") if ln.strip()]
        shell = [ln for ln in lines if not YAML_LINE.match(ln)]
        if len(shell) > MAX_SHELL_LINES and "\n" in text:
            out.append((code.count("\n", 0, m.start()) + 1, len(shell), shell[0]))
    return out


def main():
    if not shutil.which("shellcheck"):
        skip("shellcheck is not installed", "shellcheck")
    scripts = sorted(glob.glob(os.path.join(CI, "*.sh")))
    check(len(scripts) >= 10, "ci/ holds the job scripts", str(scripts))
    with open(os.path.join(CI, "github_internal.h")) as f:
        table = f.read()
    for path in scripts:
        name = os.path.basename(path)
        p = subprocess.run(["shellcheck", "-s", "bash", "-"], input=joined(path), text=True,
                           capture_output=True)
        check(p.returncode == 0, f"shellcheck {name}", p.stdout)
        check(f"X({name.replace('.', '_')})" in table,
              f"{name} is embedded (CI_SCRIPTS in ci/github_internal.h)")
        with open(path) as f:
            first = f.readline()
        check(first.startswith(f"# {name}: "), f"{name} opens with a line saying what it is for",
              first)
    for path in sorted(glob.glob(os.path.join(CI, "*.c"))):
        with open(path) as f:
            text = f.read()
        for line, n, first in shell_lines(text):
            check(False, f"{os.path.relpath(path, ROOT)}:{line}: a C literal holds {n} lines "
                  f"of shell (at most {MAX_SHELL_LINES}): make it a file under ci/", first)
    # The check can fail: a script planted as a C literal is found.
    with open(os.path.join(CI, "install_torch.sh")) as f:
        planted = "static const char *const s =\n" + "".join(
            '    "' + ln.replace("\\", "\\\\").replace('"', '\\"') + '\\n"\n'
            for ln in f.read().splitlines()) + ";\n"
    check(shell_lines(planted), "a script planted as a C literal is found")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print(f"test_ci_scripts: {len(scripts)} scripts shellchecked; no C literal in ci/ holds "
          f"more than {MAX_SHELL_LINES} lines of shell")


main()
