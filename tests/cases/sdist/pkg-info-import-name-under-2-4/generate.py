import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Dynamic: summary', 'Dynamic: summary\nImport-Name: demo')
write('demo-1.0.tar.gz', good_members())
