import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Version: 1.0', 'Version: 1.0\n  .post1')
write('demo-1.0.tar.gz', good_members())
