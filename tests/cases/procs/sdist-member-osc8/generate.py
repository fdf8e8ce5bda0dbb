import os
import shutil
import sys
FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'sdist', '_fixture')
sys.path.insert(0, FIX)
from sdistgen import good_members, member, write  # noqa: E402

# A member whose name is an OSC 8 hyperlink around a colour: the error that refuses it shows
# it escaped.
shutil.copy(os.path.join(FIX, 'cfg.toml'), 'cfg.toml')
write('demo-1.0.tar.gz', good_members() + member(
    'demo-1.0/\x1b]8;;https://evil.example/\x1b\\\x1b[31mclick\x1b]8;;\x1b\\', 'x'))
