import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members() + member('p', b'99 path=x\n', type_=b'x') + member('demo-1.0/y', 'x'))
