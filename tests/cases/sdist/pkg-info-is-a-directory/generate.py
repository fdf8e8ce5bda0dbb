import sys
sys.path.insert(0, '.')
from sdistgen import *
def without(*skip):
    out = member('demo-1.0/', type_=b'5', mode=0o755)
    for p, t in GOOD.items():
        if p not in skip:
            out += member('demo-1.0/' + p, t)
    return out
write('demo-1.0.tar.gz', without('PKG-INFO') + member('demo-1.0/PKG-INFO/', type_=b'5', mode=0o755))
