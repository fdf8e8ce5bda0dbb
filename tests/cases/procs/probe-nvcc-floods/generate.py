import sys
sys.path.insert(0, '.')
from gen import GOOD_VERSION, toolkit, use_toolkit

# nvcc --version answers, then prints 300 MB: refused at 1 MiB, quickly, in bounded memory.
toolkit('fakecuda', GOOD_VERSION + '; head -c 300000000 /dev/zero | tr "\\0" x')
use_toolkit('fakecuda')
