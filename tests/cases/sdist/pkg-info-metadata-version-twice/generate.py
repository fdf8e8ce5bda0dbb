import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Name: demo', 'Metadata-Version: 2.1\nName: demo')
write('demo-1.0.tar.gz', good_members())
