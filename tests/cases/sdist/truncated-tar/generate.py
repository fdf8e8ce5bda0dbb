import sys
sys.path.insert(0, '.')
from sdistgen import *
import gzip
raw = good_members() + header('demo-1.0/cut', size=4096)
open('demo-1.0.tar.gz', 'wb').write(gzip.compress(raw + b'x' * 100))
