import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', member('setup.py', 'x'))
