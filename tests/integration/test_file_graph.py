"""No cycle between the files of a folder: within each product library (libcuwheel_*.a, one per
folder), file A depends on file B when A uses a symbol B defines, and these dependencies form no
cycle, so a helper two files share lives below both (audit_finding.c under the audit's checks,
discover_common.c under the toolkit and Python searches) instead of in one that calls the other.
Read with nm from the build dir beside $CUWHEEL; exits 77 (skipped) without nm or the libraries.
Prints each folder's file edges it found when it fails."""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402
from nm_symbols import nm  # noqa: E402

BUILD = os.path.dirname(os.path.abspath(os.environ["CUWHEEL"]))


def symbols(lib):
    """{object: (defined symbols, used symbols)} of a static library, by the object's name."""
    objs = {}
    for obj, (d, u) in nm(lib, "TDRB").items():
        od, ou = objs.setdefault(obj.split(":", 1)[-1], (set(), set()))
        od |= d
        ou |= u
    return objs


def cycles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    if not shutil.which("nm"):
        return testskip.skip_code("no nm (binutils) to read the objects with")
    libs = sorted(glob.glob(os.path.join(BUILD, "libcuwheel_*.a")))
    if len(libs) < 2:
        return testskip.skip_code(f"no product libraries in {BUILD}")
    ok = True
    n_files = 0
    for lib in libs:
        objs = symbols(lib)
        n_files += len(objs)
        owner = {s: o for o, (d, _) in objs.items() for s in d}
        edges, via = {}, {}
        for o, (_, used) in objs.items():
            for s in used:
                p = owner.get(s)
                if p and p != o:
                    edges.setdefault(o, set()).add(p)
                    via.setdefault((o, p), s)
        for comp in cycles(edges):
            ok = False
            name = os.path.basename(lib)
            print(f"FAIL: {name}: the files {', '.join(c[:-2] for c in comp)} depend on each "
                  "other in a cycle:", file=sys.stderr)
            for a in comp:
                for b in sorted(edges.get(a, set()) & set(comp)):
                    print(f"  {a[:-2]} -> {b[:-2]} (uses {via[(a, b)]})", file=sys.stderr)
    if ok:
        print(f"ok: no cycle between the files of a folder ({len(libs)} libraries, "
              f"{n_files} files)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
