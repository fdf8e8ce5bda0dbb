"""The audit's finding codes have one source of truth (packager/audit_codes.h, printed by
`cuwheel audit --codes`): the manual's audit page (docs/manual/audit.md) lists exactly those codes with the same
severity and meaning; every code an audit_add() call in packager/ can report is in the table, at
the severity the table gives it; and every code of the table is reported somewhere."""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
CUWHEEL = os.path.abspath(os.environ.get("CUWHEEL") or
                          os.path.join(ROOT, "build", "ci", "cuwheel"))
CODE = re.compile(r'"([a-z0-9]+(?:-[a-z0-9]+)*)"')
failures = []


def check(cond, what, detail=""):
    print(f"{'ok' if cond else 'FAIL'}: {what}")
    if not cond:
        failures.append(what)
        if detail:
            print(detail, file=sys.stderr)


def call_args(text, start):
    """The first three top-level arguments of the call whose '(' is at start."""
    args, depth, cur, i, in_str = [], 0, "", start + 1, False
    while i < len(text) and len(args) < 3:
        ch = text[i]
        if in_str:
            cur += ch
            if ch == "\\":
                cur += text[i + 1]
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str, cur = True, cur + ch
        elif ch in "([{":
            depth, cur = depth + 1, cur + ch
        elif ch in ")]}":
            if depth == 0:
                args.append(cur)
                break
            depth, cur = depth - 1, cur + ch
        elif ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return [a.strip() for a in args]


def main():
    p = subprocess.run([CUWHEEL, "audit", "--codes"], capture_output=True, text=True)
    check(p.returncode == 0, "cuwheel audit --codes", p.stderr)
    table = [tuple(line.split("\t")) for line in p.stdout.splitlines()]
    codes = {c: (sev, meaning) for c, sev, meaning in table}
    check(len(codes) == len(table) and len(table) > 40,
          f"the table has {len(table)} distinct codes")

    readme = open(os.path.join(ROOT, "docs", "manual", "audit.md"), encoding="utf-8").read()
    m = re.search(r"<!-- audit-codes -->\n(.*?)<!-- /audit-codes -->", readme, re.S)
    check(bool(m), "docs/manual/audit.md has an <!-- audit-codes --> section")
    rows = re.findall(r"^\| `([^`]+)` \| (\w+) \| (.+?) \|$", m[1] if m else "", re.M)
    check(rows == table, "docs/manual/audit.md lists exactly the table's codes, severities and meanings",
          f"only in the table: {sorted(set(table) - set(rows))}\n"
          f"only in docs/manual/audit.md: {sorted(set(rows) - set(table))}")

    used = set()
    for name in sorted(os.listdir(os.path.join(ROOT, "packager"))):
        if not name.endswith(".c"):
            continue
        text = open(os.path.join(ROOT, "packager", name), encoding="utf-8").read()
        for call in re.finditer(r"\baudit_add\(", text):
            if text[max(0, call.start() - 5):call.start()].strip().endswith("void"):
                continue  # the definition
            args = call_args(text, call.end() - 1)
            if len(args) < 3:
                continue
            line = text.count("\n", 0, call.start()) + 1
            # The code argument's own literals: not those inside a call in it (strcmp(...)).
            arg = args[2]
            while re.search(r"\([^()]*\)", arg):
                arg = re.sub(r"\([^()]*\)", "", arg)
            for code in CODE.findall(arg):
                used.add(code)
                check(code in codes, f"packager/{name}:{line}: '{code}' is in the table")
                level = {"AUDIT_ERROR": "error", "AUDIT_WARNING": "warning", "AUDIT_NOTE": "note"}.get(args[1])
                if code in codes and level:
                    check(level == codes[code][0],
                          f"packager/{name}:{line}: '{code}' is reported as the table's "
                          f"{codes[code][0]}")
    check(used == set(codes), "every code of the table is reported somewhere",
          f"never reported: {sorted(set(codes) - used)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
