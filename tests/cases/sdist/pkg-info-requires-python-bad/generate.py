import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Requires-Python: >=3.10', 'Requires-Python: >=banana')
write('demo-1.0.tar.gz', good_members())
