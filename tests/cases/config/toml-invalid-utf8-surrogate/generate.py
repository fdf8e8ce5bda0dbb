# Made at run time: toml-invalid-utf8-surrogate
import os
base = open('pyproject.toml', 'rb').read()
open('pyproject.toml', 'wb').write(base.replace(b'"demo"', b'"de\xed\xa0\x80mo"', 1))
