import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Metadata-Version: 2.4\n', 'Metadata-Version: 2.3\nLicense-Expression: MIT\n')
write('demo-1.0.tar.gz', good_members())
