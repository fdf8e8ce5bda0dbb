import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = 'Metadata-Version: 2.4\nName: demo\nVersion: one.two\n'
write('demo-1.0.tar.gz', good_members())
