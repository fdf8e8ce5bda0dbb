import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Home-page: https://example.org/demo', 'Project-URL: https://example.org/demo')
write('demo-1.0.tar.gz', good_members())
