"""No product function is longer than 150 lines (the house style: "functions under ~150
lines"), counted from the line of its opening brace to the line of its closing brace.

Reads every .c and .h file of the product folders (the libraries CMakeLists.txt declares with
cuwheel_area(), and cli/main.c's folder; not tests/, examples/, bench/ nor build/). The code is
clang-formatted (.clang-format: BreakBeforeBraces: Linux), so a function body opens with a
line that is "{" alone at column 0 and closes with the next line that begins with "}" at
column 0; a body whose close is not "}" alone, or a "{" whose signature names no function, is a
parse failure, not a pass. Fails naming file:line, the function and its length; prints the
five longest either way, and fails when it finds fewer functions than the product has (a
parser that finds nothing must not pass)."""
import os
import re
import sys

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
LIMIT = 150
# The product holds ~1,300 functions; far fewer means the parse went wrong.
MIN_FUNCTIONS = 500
NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def product_folders():
    text = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    folders = re.findall(r"^cuwheel_area\((\w+)", text, re.M)
    if not folders:
        sys.exit("test_function_length: no cuwheel_area() in CMakeLists.txt")
    return sorted(set(folders) | {"cli"})


def functions(path):
    """[(name, open line, length in lines)] of one file, and [parse errors]."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, errors = [], []
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        # The signature: the lines above back to a blank line, a comment's end, a ';' or '}'.
        j, sig = i - 1, []
        while j >= 0 and lines[j].strip() and not lines[j].startswith(("}", "#")) and \
                not lines[j].rstrip().endswith((";", "*/")):
            sig.insert(0, lines[j])
            j -= 1
        sig = " ".join(sig)
        m = NAME.search(sig)
        if not m or not sig.rstrip().endswith(")"):
            errors.append(f"{path}:{i + 1}: a '{{' at column 0 after no function signature "
                          f"({sig.strip()[:60]!r})")
            i += 1
            continue
        k = i + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        if k == len(lines) or lines[k] != "}":
            errors.append(f"{path}:{i + 1}: {m[1]}: its body does not close with '}}' alone "
                          f"at column 0")
            i += 1
            continue
        found.append((m[1], i + 1, k - i + 1))
        i = k + 1
    return found, errors


def main():
    every, errors = [], []
    folders = product_folders()
    for folder in folders:
        d = os.path.join(ROOT, folder)
        if not os.path.isdir(d):
            errors.append(f"{folder}/: a product folder CMakeLists.txt names is missing")
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            rel = f"{folder}/{name}"
            fns, errs = functions(os.path.join(ROOT, rel))
            errors += [e.replace(os.path.join(ROOT, rel), rel) for e in errs]
            every += [(length, rel, line, fn) for fn, line, length in fns]
    every.sort(key=lambda t: (-t[0], t[1], t[2]))
    print(f"{len(every)} functions in {len(folders)} folders ({' '.join(folders)}); "
          f"the five longest:")
    for length, rel, line, fn in every[:5]:
        print(f"  {length:4d} {rel}:{line} {fn}")
    long = [t for t in every if t[0] > LIMIT]
    for length, rel, line, fn in long:
        errors.append(f"{rel}:{line}: {fn} is {length} lines (at most {LIMIT}): split it "
                      f"into helpers")
    if len(every) < MIN_FUNCTIONS:
        errors.append(f"only {len(every)} functions found (expected more than "
                      f"{MIN_FUNCTIONS}): the parse is wrong")
    for e in errors:
        print(f"FAIL: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
