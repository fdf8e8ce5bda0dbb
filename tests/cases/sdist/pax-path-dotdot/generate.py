import sys
sys.path.insert(0, '.')
from sdistgen import *
write('demo-1.0.tar.gz', good_members() + pax({'path': 'demo-1.0/../../x'}) + member('demo-1.0/harmless', 'x'))
