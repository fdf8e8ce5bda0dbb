"""Every option of every command, read from the generated help (`cuwheel --help` names the
commands, `cuwheel CMD --help` their option sections, themselves generated from the tables the
parser reads): each one is known to the parser, a value-taking option given without a value
fails with exit 2 and the uniform "option '--x' needs a value", a misspelt one is unknown with
a did-you-mean hint naming it. A new option or command is covered without editing this file."""
import os
import re
import subprocess
import sys
import tempfile

CUWHEEL = os.environ.get("CUWHEEL", "build/ci/cuwheel")
UNKNOWN = "--no-such-option-at-all"
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{detail}", file=sys.stderr)


def run(args, cwd):
    return subprocess.run([CUWHEEL, *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)


def commands(cwd):
    out = run(["--help"], cwd).stdout
    tail = out.split("\nCommands:\n", 1)[1]
    return [l.split()[0] for l in tail.splitlines() if l.startswith("  ") and l.strip()]


SECTION = re.compile(r"^Options(?: of 'cuwheel (?P<words>[^']+)')?:$")


def option_sections(text, cmd):
    """[(argv prefix, [(spellings, takes_value)])] for each "Options..." section of a help."""
    sections, cur = [], None
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            prefix = m.group("words").split() if m.group("words") else ([cmd] if cmd else [])
            cur = (prefix, [])
            sections.append(cur)
        elif cur is not None and line.startswith("  -"):
            spec = re.split(r"\s{2,}", line.strip())[0]
            words = spec.replace(",", "").split()
            names = [w for w in words if w.startswith("-")]
            cur[1].append((names, len(words) > len(names)))
        elif cur is not None and not line.startswith("   "):
            cur = None
    return sections


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cmds = commands(tmp)
        check(len(cmds) >= 10, "cuwheel --help lists the commands", str(cmds))
        helps = {None: run(["--help"], tmp).stdout}
        for cmd in cmds:
            r = run([cmd, "--help"], tmp)
            check(r.returncode == 0, f"cuwheel {cmd} --help exits 0", r.stderr)
            check(run(["help", cmd], tmp).stdout == r.stdout,
                  f"'cuwheel help {cmd}' and 'cuwheel {cmd} --help' agree")
            helps[cmd] = r.stdout
        n = 0
        for cmd, text in helps.items():
            sections = option_sections(text, cmd)
            check(sections and all(opts for _, opts in sections),
                  f"the help of {cmd or 'cuwheel'} has generated option sections", text)
            for prefix, opts in sections:
                for names, takes_value in opts:
                    for name in names:
                        n += 1
                        where = " ".join(["cuwheel", *prefix, name])
                        if takes_value:
                            r = run([*prefix, name], tmp)
                            check(r.returncode == 2 and
                                  f"error: option '{name}' needs a value" in r.stderr,
                                  f"{where} without a value is the uniform usage error",
                                  f"exit {r.returncode}\n{r.stderr}")
                        else:
                            # Known to the parser: the unknown option after it is the error
                            # (or the flag acted at once: --version, --codes).
                            r = run([*prefix, name, UNKNOWN], tmp)
                            check(f"unknown option '{name}'" not in r.stderr and
                                  (r.returncode == 0 or
                                   (r.returncode == 2 and
                                    f"unknown option '{UNKNOWN}'" in r.stderr)),
                                  f"{where} is a flag the parser knows",
                                  f"exit {r.returncode}\n{r.stderr}")
                        if name.startswith("--") and name not in ("--help", "--version"):
                            typo = name + "x"
                            r = run([*prefix, typo, "v"], tmp)
                            check(r.returncode == 2 and
                                  f"error: unknown option '{typo}'" in r.stderr and
                                  f"hint: did you mean '{name}'?" in r.stderr,
                                  f"{' '.join(['cuwheel', *prefix, typo])} suggests {name}",
                                  f"exit {r.returncode}\n{r.stderr}")
        check(n >= 60, "every option of every command was checked", str(n))
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
    print(f"{n} options of {len(helps)} help texts checked")


main()
