# Made at run time: toml-nul-byte
import os
base = open('pyproject.toml', 'rb').read()
open('pyproject.toml', 'wb').write(base.replace(b'"demo"', b'"de\x00mo"', 1))
