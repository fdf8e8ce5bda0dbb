import sys
sys.path.insert(0, '.')
from gen import HOSTILE, toolkit, use_toolkit

# nvcc --version fails printing an ANSI colour, an OSC 8 link, a CR, a forged annotation.
toolkit('fakecuda', "printf '%b\\n' " + HOSTILE + '; exit 1')
use_toolkit('fakecuda')
