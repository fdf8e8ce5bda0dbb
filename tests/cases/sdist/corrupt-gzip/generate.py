import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members())
data = bytearray(open('demo-1.0.tar.gz', 'rb').read())
for i in range(20, 60): data[i] ^= 0x5a
open('demo-1.0.tar.gz', 'wb').write(bytes(data))
