import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['README.md'] = '#' * (17 << 20)
write('demo-1.0.tar.gz', good_members())
