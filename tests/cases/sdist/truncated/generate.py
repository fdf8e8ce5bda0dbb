import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members())
data = open('demo-1.0.tar.gz', 'rb').read()
open('demo-1.0.tar.gz', 'wb').write(data[:len(data) // 2])
