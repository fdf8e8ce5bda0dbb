# Made at run time: pyproject-is-directory
import os
os.remove('pyproject.toml')
os.mkdir('pyproject.toml')
