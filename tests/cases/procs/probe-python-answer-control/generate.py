import sys
sys.path.insert(0, '.')
from gen import use_python

# A well-formed probe answer whose version string carries ESC (as the JSON escape \u001b).
use_python("printf '\\n@@cuwheel-probe@@{\"version\":\"3.12.1\\\\u001b[2J\",\"major\":3,"
           "\"minor\":12}\\n'\n")
