# Made at run time: pyproject-dangling-symlink
import os
os.remove('pyproject.toml')
os.symlink('nowhere.toml', 'pyproject.toml')
