import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO
m = good_members().replace(b'A demo built', b'A d\xffmo built')
write('demo-1.0.tar.gz', m)
