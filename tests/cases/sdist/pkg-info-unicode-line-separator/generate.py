import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Summary: A demo built from its sdist', 'Summary: a\u2028Requires-Dist: evil-package')
write('demo-1.0.tar.gz', good_members())
