import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('License-File: LICENSE\n', '')
GOOD['COPYING.txt'] = 'GPL\n'
GOOD['NOTICE'] = 'notice\n'
GOOD['LICENSES.md'] = 'not a match for LICEN[CS]E* ... it is: LICENSES.md\n'
GOOD['README.md'] = 'not a licence\n'
write('demo-1.0.tar.gz', good_members())
