import sys
sys.path.insert(0, '.')
from gen import GOOD_VERSION, fake_cpython, toolkit, use_toolkit

# nvcc fails on the one kernel: the summary says the archive FAILED at that step, never
# "compiled once: up to date" (ninja logs no finished step of it, so it has no time).
toolkit('fakecuda', GOOD_VERSION,
        extra='case " $* " in *" -c "*) echo "k.cu(1): error: broken kernel" >&2; exit 2 ;; esac\n')
use_toolkit('fakecuda')
fake_cpython()
