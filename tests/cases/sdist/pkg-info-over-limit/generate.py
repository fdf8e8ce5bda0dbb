import sys
sys.path.insert(0, '.')
from sdistgen import *
def without(*skip):
    out = member('demo-1.0/', type_=b'5', mode=0o755)
    for p, t in GOOD.items():
        if p not in skip:
            out += member('demo-1.0/' + p, t)
    return out
GOOD['PKG-INFO'] = PKG_INFO + 'x' * (17 << 20)
write('demo-1.0.tar.gz', good_members())
