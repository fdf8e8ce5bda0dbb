"""test_torch_ext_pt212: examples/torchext's torch 2.12 cells (issue 30): torch 2.12.0 from
PyPI (built with CUDA 13.0.2) x CUDA 13.0 x Python 3.12 and 3.13 in one `cuwheel build` beside
the example's 2.6/2.11/2.15 cells (narrowed here to torch 2.12), two `+pt212cu130` wheels, each
tested in a fresh venv that sees its torch.

1. `examples/torchext/setup-pythons --torch 2.12`: build/torch-pythons/pt212/py3.12, py3.13;
2. `cuwheel plan --json` with the matrix narrowed to torch 2.12 and CUDA 13.0: the two cells
   are selected and buildable, each with its pt212 venv;
3. `cuwheel build`: two wheels torchext-0.1.0+pt212cu130-cp31X-cp31X-manylinux_*; `cuwheel
   audit` names torch as the provider of libc10, libtorch_cpu and libcudart.so.13; each
   METADATA has Requires-Dist: torch>=2.12,<2.13;
4. `cuwheel test --json`: the two (wheel, Python) pairs pass the example's pytest (CPU paths).

Needs CUDA 13.0 (/usr/local/cuda) and network to PyPI the first time (two venvs of about
1.7 GB). Minutes (label torchmatrix); exits 77 without nvcc."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check  # noqa: E402
import testskip  # noqa: E402
from torchext_cells import cell_id, check_cells  # noqa: E402

PYTHONS = ["3.12", "3.13"]
CELLS = [cell_id(p, "2.12", "13.0") for p in PYTHONS]


def others(cells):
    check(not any(c.get("selected") for i, c in cells.items() if "-pt212-" in i and i not in CELLS),
          "no other torch 2.12 cell is selected (3.10, 3.11, 3.14 are excluded)")


def main():
    if not os.path.exists("/usr/local/cuda/bin/nvcc"):
        return testskip.skip_code("no CUDA 13.0 at /usr/local/cuda (nvcc)")
    return check_cells("test_torch_ext_pt212", "2.12", "13.0", PYTHONS, others)


if __name__ == "__main__":
    sys.exit(main())
