# Made at run time: toml-invalid-utf8-truncated-at-eof
import os
base = open('pyproject.toml', 'rb').read()
open('pyproject.toml', 'wb').write(base + b'# \xe2\x82')
