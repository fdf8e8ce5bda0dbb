# Made at run time: toml-invalid-utf8-string
import os
base = open('pyproject.toml', 'rb').read()
open('pyproject.toml', 'wb').write(base.replace(b'"demo"', b'"de\xffmo"', 1))
