import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members())
