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
def patched():
    GOOD['PKG-INFO'] = PKG_INFO.replace('Version: 1.0', 'Version: 6.6.6')
    GOOD['kern/k.cu'] = '__global__ void patched() {}\n'
    return good_members()
write('demo-1.0.tar.gz', good_members())
must('plan', 'demo-1.0.tar.gz', '--config', 'cfg.toml')
write('demo-1.0.tar.gz', patched())
