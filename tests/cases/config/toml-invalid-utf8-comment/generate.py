# Made at run time: toml-invalid-utf8-comment
import os
base = open('pyproject.toml', 'rb').read()
open('pyproject.toml', 'wb').write(base.replace(b'[tool.cuwheel]', b'# caf\xc3(\n[tool.cuwheel]', 1))
