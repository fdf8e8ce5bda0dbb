import sys
sys.path.insert(0, '.')
from gen import GOOD_VERSION, fake_cpython, replace_in_pyproject, toolkit, use_toolkit

# The kernels' nvcc-flags name C++20: the kernel's nvcc command holds that standard alone, not
# cuwheel's -std=c++17 too (nvcc takes the last and warns "incompatible redefinition for option
# 'std'" on two).
replace_in_pyproject('archs = "9.0"\n', 'archs = "9.0"\nnvcc-flags = ["-std=c++20"]\n')
toolkit('fakecuda', GOOD_VERSION)
use_toolkit('fakecuda')
fake_cpython()
