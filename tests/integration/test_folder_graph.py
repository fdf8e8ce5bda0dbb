"""The folders of the product form a graph without a cycle, in the pipeline's layers (LAYERS: a
folder uses only folders of a lower layer, so kernels/ can never reach into bindings/ nor
matrix/ into torch/): the graph is derived from the #include lines of every .c and .h file, a depth-first
search fails on a back edge, and every edge must be one that CMakeLists.txt allows the folder's
library (cuwheel_area(NAME USES ...)), so that the build, this test and docs/design.md's
section describe the same graph. Prints the graph it found.

Also: POSIX file and process calls and system queries (POSIX_CALL: link, access, pwrite and
sysconf among them) live behind base/ (base/os-*.h), so that every
rename goes through one place (os_commit_tmp's fsync and cleanup for whole files) and every
error names its path the same way. A product .c outside base/ that calls one fails, naming
file:line, unless POSIX_ALLOWED lists the file and call with the reason it must stay.

Also: wheel tags (Python, ABI and platform tags, an extension module's suffix tag) are read only
in standards/ (standards/tags.h): a product .c outside standards/ that compares a string's start
with a tag prefix ("cp3", "win_", "manylinux_", "cpython-", ...) or scans one with sscanf fails,
naming file:line."""
import os
import re
import sys

ROOT = os.environ.get("CUWHEEL_SOURCE_DIR") or os.getcwd()
# The layers, lowest first; folders of one layer are independent of each other.
LAYERS = [
    ["base"],
    ["standards"],
    ["toolchain", "packager"],
    ["matrix"],       # the config model and its expansion
    ["kernels"],      # the kernel archive's key and host flags
    ["torch"],        # what torch's own build would do: the scan, the plan, the flags
    ["init", "ci", "wheeltest"],  # init; the CI emitter; the wheel tests
    ["graph"],        # build.ninja
    ["report"],       # the build's result and its views
    ["cli"],          # the commands
]
RANK = {f: i for i, layer in enumerate(LAYERS) for f in layer}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


POSIX_CALL = re.compile(
    r"(?<![\w.>])(rename|unlink|open|openat|fork|execv[pe]?|waitpid|mkdir|opendir|readdir|fsync|"
    r"pipe|dup2|kill|lstat|stat|chmod|symlink|readlink|link|access|sysconf|pwrite|ftruncate)\s*\(")
# (file, call) -> why it stays outside base/. Every entry must still match a call (no stale
# entries), so this list is exactly what is left.
POSIX_ALLOWED = {
    # Not yet moved behind base/ (issue 26): these open files and directories by fd (openat
    # beneath a root with O_NOFOLLOW, fds handed to libzip or read with fstat), which base/
    # does not offer yet.
    ("matrix/config_pkginfo.c", "open"): "pending: openat beneath the project root",
    ("matrix/config_pkginfo.c", "openat"): "pending: openat beneath the project root",
    ("packager/audit_zip.c", "open"): "pending: the raw zip read by fd",
    ("packager/sdist.c", "open"): "pending: O_EXCL|O_NOFOLLOW writes beneath the tree",
    ("packager/wheel_write.c", "open"): "pending: O_NOFOLLOW fds handed to libzip",
    ("packager/wheel_write.c", "ftruncate"): "pending: libzip's write callback on that fd",
    ("standards/digest.c", "open"): "pending: hashing by fd",
    ("standards/wheel_read.c", "open"): "pending: the zip reader's fd and the unpack root",
    ("standards/wheel_read.c", "openat"): "pending: O_NOFOLLOW unpack beneath the root",
}


TAG_PARSE = re.compile(
    r'\b(strncmp|starts|istarts|sscanf)\s*\([^;]*?"(cp3?|py3?|win_?|macosx_|linux_|manylinux_?|'
    r'musllinux_|cpython-)(%d)?"')


def tag_parsing(folders):
    """file:line of every tag-prefix comparison outside standards/ and base/."""
    bad = []
    for f in folders:
        if f in ("base", "standards"):
            continue
        for name in sorted(os.listdir(os.path.join(ROOT, f))):
            if not name.endswith(".c"):
                continue
            rel = f"{f}/{name}"
            text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
            for m in TAG_PARSE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{rel}:{line}: reads a wheel tag by hand ({m[1]} with "
                           f"\"{m[2]}\"); use (or add) a tag_* function in standards/tags.h")
    return bad


def strip_c(text):
    """The text with comments and string/char literals blanked (newlines kept for line numbers)."""
    lit = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return lit.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)


def posix_calls(folders):
    """Returns (failures, used allowlist entries)."""
    bad, used = [], set()
    for f in folders:
        if f == "base":
            continue
        for name in sorted(os.listdir(os.path.join(ROOT, f))):
            if not name.endswith(".c"):
                continue
            rel = f"{f}/{name}"
            text = strip_c(open(os.path.join(ROOT, rel), encoding="utf-8").read())
            for m in POSIX_CALL.finditer(text):
                key = (rel, m[1])
                if key in POSIX_ALLOWED:
                    used.add(key)
                    continue
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{rel}:{line}: calls {m[1]}() directly; use (or add) an os_* "
                           f"function in base/os-*.h")
    return bad, used


def allowed_uses():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    uses = {}
    for m in re.finditer(r"^cuwheel_area\((\w+)(.*?)\)\s*$", text, re.M | re.S):
        args = m[2].split()
        deps = []
        if "USES" in args:
            for a in args[args.index("USES") + 1:]:
                if a.isupper():
                    break
                deps.append(a)
        uses[m[1]] = set(deps)
    return uses


def include_graph(folders):
    edges = {f: {} for f in folders}  # folder -> {folder it includes: first file:line}
    for f in folders:
        for name in sorted(os.listdir(os.path.join(ROOT, f))):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(ROOT, f, name)
            text = open(path, encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                to = m[1]
                if to != f and to in folders:
                    line = text.count("\n", 0, m.start()) + 1
                    edges[f].setdefault(to, f"{f}/{name}:{line}")
    return edges


def back_edges(edges):
    """Depth-first search; an edge to a folder still on the stack closes a cycle."""
    state, found = {}, []

    def visit(n, stack):
        state[n] = "open"
        for m in sorted(edges[n]):
            if state.get(m) == "open":
                found.append((n, m, stack[stack.index(m):] + [m]))
            elif m not in state:
                visit(m, stack + [m])
        state[n] = "done"

    for n in sorted(edges):
        if n not in state:
            visit(n, [n])
    return found


def main():
    uses = allowed_uses()
    if not uses:
        print("FAIL: no cuwheel_area(...) in CMakeLists.txt", file=sys.stderr)
        return 1
    folders = sorted(uses)
    edges = include_graph(folders)
    ok = True
    for f in folders:
        if f not in RANK:
            ok = False
            print(f"FAIL: CMakeLists.txt's folder {f}/ has no layer in LAYERS", file=sys.stderr)
    for f in folders:
        for d in sorted(uses[f]):
            if f in RANK and RANK.get(d, len(LAYERS)) >= RANK[f]:
                ok = False
                print(f"FAIL: cuwheel_area({f} USES {d}): {d}/ is not in a lower layer than "
                      f"{f}/", file=sys.stderr)
    for f in folders:
        print(f"{f:>9} -> {', '.join(sorted(edges[f])) or '(nothing)'}")
    for n, m, cycle in back_edges(edges):
        ok = False
        print(f"FAIL: back edge {n} -> {m} ({edges[n][m]}): the cycle "
              f"{' -> '.join(cycle)}", file=sys.stderr)
    for f in folders:
        for to, where in sorted(edges[f].items()):
            if to not in uses[f]:
                ok = False
                print(f"FAIL: {where} includes {to}/, which CMakeLists.txt does not let "
                      f"{f}/ use (cuwheel_area({f} USES {' '.join(sorted(uses[f]))}))",
                      file=sys.stderr)
    bad, used = posix_calls(folders)
    for b in bad:
        ok = False
        print(f"FAIL: {b}", file=sys.stderr)
    for b in tag_parsing(folders):
        ok = False
        print(f"FAIL: {b}", file=sys.stderr)
    for key in sorted(set(POSIX_ALLOWED) - used):
        ok = False
        print(f"FAIL: POSIX_ALLOWED lists {key[0]} {key[1]}(), which no longer calls it: "
              f"remove the entry", file=sys.stderr)
    # docs/design.md draws the same graph: every allowed edge appears in it.
    readme = open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8").read()
    m = re.search(r"<!-- folder-graph -->\n(.*?)<!-- /folder-graph -->", readme, re.S)
    if not m:
        ok = False
        print("FAIL: docs/design.md has no <!-- folder-graph --> block", file=sys.stderr)
    else:
        drawn = set(re.findall(r"^\s*(\w+)\s+->\s+(.+?)\s*$", m[1], re.M))
        drawn = {(a, b.strip()) for a, bs in drawn for b in bs.split(",")}
        want = {(f, d) for f in folders for d in uses[f]}
        if drawn != want:
            ok = False
            print(f"FAIL: docs/design.md's folder graph differs from CMakeLists.txt: missing "
                  f"{sorted(want - drawn)}, extra {sorted(drawn - want)}", file=sys.stderr)
    if ok:
        print("ok: no back edge; every use goes to a lower layer; every include is an edge "
              "CMakeLists.txt allows; docs/design.md agrees; no POSIX call outside base/ but "
              "those POSIX_ALLOWED lists; no wheel tag read by hand outside standards/")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
