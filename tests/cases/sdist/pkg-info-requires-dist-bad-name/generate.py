import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Requires-Dist: numpy', 'Requires-Dist: num py>=1')
write('demo-1.0.tar.gz', good_members())
