"""No dead exports: every function a product library exports (a T symbol in libcuwheel_*.a) is
used by another object: another file of the product (the libraries, cuwheel's main.o), a unit
test or a fuzz harness (tests/CMakeLists.txt compiles the harnesses without linking them, so
this check sees them in every build). A function only its own file calls belongs `static` in
that file; one nothing calls belongs deleted. Read with nm from the build dir beside $CUWHEEL;
exits 77 (skipped) without nm or the objects."""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testskip  # noqa: E402
from nm_symbols import nm  # noqa: E402

BUILD = os.path.dirname(os.path.abspath(os.environ["CUWHEEL"]))


def main():
    if not shutil.which("nm"):
        return testskip.skip_code("no nm (binutils) to read the objects with")
    libs = sorted(glob.glob(os.path.join(BUILD, "libcuwheel_*.a")))
    main_o = glob.glob(os.path.join(BUILD, "CMakeFiles", "cuwheel.dir", "cli", "main.c.o"))
    tests = glob.glob(os.path.join(BUILD, "tests", "CMakeFiles", "*", "**", "*.o"),
                      recursive=True)
    if not libs or not main_o or not any("fuzz_harnesses" in t for t in tests):
        return testskip.skip_code(f"no libraries, main.o or fuzz harness objects in {BUILD}")
    defined = {}  # symbol -> object that defines it
    users = {}    # symbol -> objects that use it
    for path in libs + main_o + tests:
        for obj, (d, u) in nm(path).items():
            if path in libs:
                for s in d:
                    defined[s] = obj
            for s in u:
                users.setdefault(s, set()).add(obj)
    dead = sorted(f"{obj.split(':', 1)[-1]}: {s}" for s, obj in defined.items()
                  if not users.get(s, set()) - {obj})
    if dead:
        print("FAIL: exported functions no other object uses (make them static, or delete "
              "them):\n  " + "\n  ".join(dead), file=sys.stderr)
        return 1
    print(f"ok: each of the {len(defined)} exported functions of {len(libs)} libraries is used "
          f"by another object")
    return 0


if __name__ == "__main__":
    sys.exit(main())
