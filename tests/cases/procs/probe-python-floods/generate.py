import sys
sys.path.insert(0, '.')
from gen import use_python

# An interpreter that prints 300 MB: refused at 1 MiB.
use_python("head -c 300000000 /dev/zero | tr '\\0' x\n")
