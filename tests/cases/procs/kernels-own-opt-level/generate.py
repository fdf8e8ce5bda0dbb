import sys
sys.path.insert(0, '.')
from gen import GOOD_VERSION, fake_cpython, replace_in_pyproject, toolkit, use_toolkit

# The kernels' nvcc-flags set -O2: the kernel's nvcc command holds that level alone, not
# cuwheel's -O3 too (nvcc warns "incompatible redefinition for option 'optimize'" on two).
replace_in_pyproject('archs = "9.0"\n', 'archs = "9.0"\nnvcc-flags = ["-O2"]\n')
toolkit('fakecuda', GOOD_VERSION)
use_toolkit('fakecuda')
fake_cpython()
