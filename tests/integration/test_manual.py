"""The manual cannot drift from the code: docs/manual/commands.md is what tools/gen-manual renders
from cuwheel's help (whose option sections come from the parser's option tables), every config
key of the reader's key tables (the `*_keys[]` arrays in matrix/config*.c, the same arrays that
refuse unknown keys) is named in docs/manual/, and so is every CUWHEEL_* variable cuwheel knows
(matrix/config.c's tables). Also: the README stays a manual (at most 400 lines)."""
import glob
import os
import re
import runpy
import sys

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUWHEEL = os.environ.get("CUWHEEL")
failed = []


def check(ok, what, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + (f"\n  {detail}" if detail and not ok else ""))
    if not ok:
        failed.append(what)


def c_string_arrays(paths, name_re):
    """{array name: [strings]} for every `static const char *const NAME[] = {...};`."""
    out = {}
    for p in paths:
        text = open(p, encoding="utf-8").read()
        for m in re.finditer(r"static const char \*const (\w+)\[\]\s*=\s*\{(.*?)\};", text, re.S):
            if re.fullmatch(name_re, m[1]):
                out[f"{os.path.relpath(p, ROOT)}:{m[1]}"] = re.findall(r'"([^"]*)"', m[2])
    return out


def main():
    if not CUWHEEL:
        print("CUWHEEL is not set (run through CTest)")
        sys.exit(77)
    gen = runpy.run_path(os.path.join(ROOT, "tools", "gen-manual"))
    want = gen["render"](CUWHEEL)
    have = open(os.path.join(ROOT, "docs", "manual", "commands.md"), encoding="utf-8").read()
    check(want == have, "docs/manual/commands.md is what tools/gen-manual renders from the help",
          "run tools/gen-manual build/ci/cuwheel and commit docs/manual/commands.md")
    # Every command of the table has a section, and every option its help lists is in it.
    for name in gen["commands"](gen["run"](CUWHEEL, "--help")):
        m = re.search(rf"^## cuwheel {name}\n(.*?)(?=^## |\Z)", have, re.S | re.M)
        check(bool(m), f"docs/manual/commands.md has a section for `cuwheel {name}`")
        opts = set(re.findall(r"^  (?:-\w, )?(--[\w-]+)", gen["run"](CUWHEEL, "help", name), re.M))
        missing = sorted(o for o in opts if m and o not in m[1])
        check(not missing, f"`cuwheel {name}`: every option is in its manual section", missing)

    manual = "\n".join(open(p, encoding="utf-8").read()
                       for p in sorted(glob.glob(os.path.join(ROOT, "docs", "manual", "*.md"))))
    tables = c_string_arrays(sorted(glob.glob(os.path.join(ROOT, "matrix", "config*.c"))),
                             r"\w+_keys")
    check(len(tables) >= 8, f"found the config key tables ({len(tables)})")
    for where, keys in sorted(tables.items()):
        missing = [k for k in keys if f"`{k}`" not in manual and f"{k} =" not in manual]
        check(not missing, f"{where}: every key is documented in docs/manual/", missing)

    env = c_string_arrays([os.path.join(ROOT, "matrix", "config.c")], r"env_\w+")
    names = sorted({n for v in env.values() for n in v if n.startswith("CUWHEEL")})
    overrides = re.findall(r'\{"(CUWHEEL_\w+)", ENV_\w+\}',
                           open(os.path.join(ROOT, "matrix", "config.c"), encoding="utf-8").read())
    names = sorted(set(names) | set(overrides))
    check(len(names) > 20, f"found cuwheel's environment variables ({len(names)})")
    docs = manual + open(os.path.join(ROOT, "docs", "developing.md"), encoding="utf-8").read()
    missing = [n for n in names if n not in docs]
    check(not missing, "every CUWHEEL_* variable is documented (docs/manual, docs/developing.md)",
          missing)

    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    n = readme.count("\n")
    check(n <= 400, f"README.md is a manual of at most 400 lines ({n})")
    check(not re.search(r"\bissues? \d+\b", readme), "README.md speaks of cuwheel, not of issue numbers")
    for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme):
        check(os.path.exists(os.path.join(ROOT, link)), f"README link {link} exists")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
