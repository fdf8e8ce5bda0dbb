# Made at run time: toml-invalid-utf8-overlong
import os
base = open('pyproject.toml', 'rb').read()
open('pyproject.toml', 'wb').write(base.replace(b'"demo"', b'"de\xc0\xafmo"', 1))
