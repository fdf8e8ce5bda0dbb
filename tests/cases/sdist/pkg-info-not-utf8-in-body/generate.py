import sys
sys.path.insert(0, '.')
from sdistgen import *
# same length as what it replaces: the member's size field stays right
m = good_members().replace(b'The long', b'The l\xc3(g')
write('demo-1.0.tar.gz', m)
