# Made at run time: pyproject-is-fifo
import os
os.remove('pyproject.toml')
os.mkfifo('pyproject.toml')
