import sys
sys.path.insert(0, '.')
from sdistgen import *
GOOD['PKG-INFO'] = PKG_INFO.replace('Requires-Dist: numpy', 'Requires-Dist: numpy[extra1]>=1.0,<2; python_version >= "3.10"\nRequires-Dist: torch (>=2.0)\nRequires-Dist: pkg @ https://example.org/pkg.whl\nRequires-Dist: a.b_c-d~=1.0')
write('demo-1.0.tar.gz', good_members())
