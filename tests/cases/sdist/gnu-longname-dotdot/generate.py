import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members() + member('././@LongLink', b'demo-1.0/' + b'a/' * 60 + b'../' * 62 + b'x\0', type_=b'L', magic=b'ustar  \x00') + member('demo-1.0/short', 'x', magic=b'ustar  \x00'))
