# Made at run time: toml-huge-file-50mb
import os
base = open('pyproject.toml', 'rb').read()
line = b'#' + b'y' * 99 + b'\n'
open('pyproject.toml', 'wb').write(base + line * 500000)
