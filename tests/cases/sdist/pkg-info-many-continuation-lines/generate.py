import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Dynamic: summary', 'Description: first' + '\n        a continuation line of the description' * 200000 + '\nDynamic: summary')
write('demo-1.0.tar.gz', good_members())
