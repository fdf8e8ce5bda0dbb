import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('License-File: LICENSE', 'License-File: kern/../LICENSE')
write('demo-1.0.tar.gz', good_members())
