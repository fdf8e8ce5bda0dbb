import os
import sys
sys.path.insert(0, '.')
from sdistgen import *
for path, text in GOOD.items():
    p = os.path.join('tree', 'demo-1.0', path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, 'w').write(text)
