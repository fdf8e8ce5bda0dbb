import os
import shutil
import sys
FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'sdist', '_fixture')
sys.path.insert(0, FIX)
from sdistgen import good_members, member, write  # noqa: E402

# A symlink whose target leaves the tree and carries a CR and a forged annotation line: the
# refusal shows the target escaped, on one line.
shutil.copy(os.path.join(FIX, 'cfg.toml'), 'cfg.toml')
write('demo-1.0.tar.gz', good_members() + member(
    'demo-1.0/pkg/link.py', type_=b'2', link='../../x\r\n::error title=x::forged'))
