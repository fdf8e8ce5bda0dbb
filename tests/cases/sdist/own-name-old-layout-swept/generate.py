import sys
sys.path.insert(0, '.')
from sdistgen import *
import os, subprocess
def cuwheel(*args):
    # cuwheel as CTest gives it to run_cases.py; the same clean environment as the case's own run
    env = {k: v for k, v in os.environ.items() if not k.startswith('CUWHEEL_')}
    env['CUWHEEL_CACHE_DIR'] = os.path.abspath('.probe-cache')
    return subprocess.run([os.environ['CUWHEEL']] + list(args), env=env, capture_output=True, text=True)
def must(*args):
    p = cuwheel(*args)
    if p.returncode != 0:
        sys.exit('setup run failed: %s\n%s' % (args, p.stderr))
    return p
# The layout of earlier versions: a tree named by its top directory and a stamp beside it.
os.makedirs('build/cuwheel/sdist/demo-1.0/pkg')
open('build/cuwheel/sdist/demo-1.0/pkg/stale.py', 'w').write('')
open('build/cuwheel/sdist/demo-1.0.tar.gz.unpacked', 'w').write('0' * 64 + ' demo-1.0\n')
write('demo-1.0.tar.gz', good_members())
must('plan', 'demo-1.0.tar.gz', '--config', 'cfg.toml')
left = sorted(os.listdir('build/cuwheel/sdist'))
assert len(left) == 2 and left[0] == '.unpack.lock' and len(left[1]) == 64, left
