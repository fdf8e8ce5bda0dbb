import sys
sys.path.insert(0, '.')
from gen import GOOD_VERSION, fake_cpython, replace_in_pyproject, toolkit, use_toolkit, write

# No torch anywhere: an extension of kind capi with two sources, which the plan runs through
# the preprocessor (does either hold a Python header?). The progress notes count those runs
# and must not call them torch sources.
replace_in_pyproject('sources = ["src/ext.c"]', 'sources = ["src/ext.c", "src/more.c"]')
write('src/more.c', 'int more;\n')
toolkit('fakecuda', GOOD_VERSION)
use_toolkit('fakecuda')
fake_cpython()
