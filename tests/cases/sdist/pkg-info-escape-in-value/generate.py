import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Name: demo', 'Name: demo\x1b[31mred')
write('demo-1.0.tar.gz', good_members())
