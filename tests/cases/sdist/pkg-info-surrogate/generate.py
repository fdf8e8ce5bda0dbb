import sys
sys.path.insert(0, '.')
from sdistgen import *
# same length as what it replaces: the member's size field stays right
m = good_members().replace(b'A demo', b'A \xed\xa0\x80o')
write('demo-1.0.tar.gz', m)
