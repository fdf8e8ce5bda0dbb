"""test_torch_ext_pt215: examples/torchext's torch 2.15 cells (issue 30): torch 2.15.0 from
PyPI (built with CUDA 13.2) x CUDA 13.2 x Python 3.11-3.14 in one `cuwheel build`, four
`+pt215cu132` wheels, each tested in a fresh venv that sees its torch.

1. `cuwheel python install 3.14` (this machine has no 3.14: CPython from Debian's packages,
   docs/manual/pythons.md) and `cuwheel toolkit install 13.2` (CUDA 13.2 from PyPI);
2. `examples/torchext/setup-pythons --torch 2.15`: build/torch-pythons/pt215/py3.11 ... py3.14,
   the 3.14 one from the interpreter step 1 provisioned (torch 2.15 requires Python >= 3.11:
   PyPI has no cp310 wheel of it, so there is no cp310-pt215 cell);
3. `cuwheel plan --json` with the matrix narrowed to torch 2.15 and CUDA 13.2: the four cells
   are selected and buildable, each with its pt215 venv;
4. `cuwheel build`: four wheels torchext-0.1.0+pt215cu132-cp31X-cp31X-manylinux_*; `cuwheel
   audit` names torch as the provider of libc10, libtorch_cpu and libcudart.so.13; each
   METADATA has Requires-Dist: torch>=2.15,<2.16;
5. `cuwheel test --json`: the four (wheel, Python) pairs pass the example's pytest (CPU paths).

Long (four venvs of about 1.7 GB, 540 MB of torch wheel each from PyPI the first time; the
binding compiled per Python): not in ci/test. Run it with
    cmake --preset ci -DCUWHEEL_TORCH215_TESTS=ON && (cd build/ci && ctest -L torch215 -V)
Exits 77 without network to PyPI and Debian's archive."""
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from checks import check, run  # noqa: E402
import testskip  # noqa: E402
from torchext_cells import CUWHEEL, check_cells  # noqa: E402


def others(cells):
    check("cp310-pt215-cu132-linux_x86_64" not in cells, "no cp310 cell (torch 2.15 needs 3.11)")


def main():
    for host, port in (("pypi.org", 443), ("deb.debian.org", 80)):
        try:
            socket.create_connection((host, port), timeout=10).close()
        except OSError:
            return testskip.skip_code(f"{host} is not reachable")
    for args in (["python", "install", "3.14"], ["toolkit", "install", "13.2"]):
        rc, out = run([CUWHEEL] + args)
        print(out.strip()[-2000:])
        if not check(rc == 0, "cuwheel " + " ".join(args)):
            return 1
    return check_cells("test_torch_ext_pt215", "2.15", "13.2", ["3.11", "3.12", "3.13", "3.14"],
                       others)


if __name__ == "__main__":
    sys.exit(main())
