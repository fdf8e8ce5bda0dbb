import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members() + member('demo-1.0/alias.cu', type_=b'2', link='kern/k.cu'))
