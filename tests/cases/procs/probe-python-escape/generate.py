import sys
sys.path.insert(0, '.')
from gen import HOSTILE, use_python

# The pythons table's interpreter fails, printing an ANSI colour, an OSC 8 link, a CR and a
# forged annotation: plan names it with its first line escaped.
use_python("printf '%b\\n' " + HOSTILE + "\nexit 1\n")
