import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Summary:', 'Version: 6.6.6\nSummary:')
write('demo-1.0.tar.gz', good_members())
