"""nm_symbols: the symbols each object file of a static library or object defines and uses, as
`nm -A` lists them (read by test_exports and test_file_graph)."""
import subprocess


def nm(path, kinds="T"):
    """{object: (defined symbols of the nm kinds KINDS, undefined symbols)} of path; object is
    nm's name for it: "lib.a:file.o" in a library, the path alone for an object file."""
    out = subprocess.run(["nm", "-A", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True).stdout
    objs = {}
    for line in out.splitlines():
        # "lib.a:file.o:<address> T name", "lib.a:file.o: U name" (file.o: alone for an object)
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, sym = parts[-2], parts[-1]
        obj = parts[0].rstrip(":") if kind == "U" else parts[0].rsplit(":", 1)[0]
        d, u = objs.setdefault(obj, (set(), set()))
        if kind in kinds:
            d.add(sym)
        elif kind == "U":
            u.add(sym)
    return objs
