import sys
sys.path.insert(0, '.')
from sdistgen import *
def without(*skip):
    out = member('demo-1.0/', type_=b'5', mode=0o755)
    for p, t in GOOD.items():
        if p not in skip:
            out += member('demo-1.0/' + p, t)
    return out
def link(name, target):
    return member('demo-1.0/' + name, type_=b'2', link=target)
write('demo-1.0.tar.gz', good_members() + link('a', '.') + link('extra/alias', '../a/a/kern/k.cu'))
