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
write('demo-1.0.tar.gz', good_members())
must('plan', 'demo-1.0.tar.gz', '--config', 'cfg.toml')
key = [t for t in os.listdir('build/cuwheel/sdist') if len(t) == 64][0]
write('other.tar.gz', good_members(key))
must('plan', 'other.tar.gz', '--config', 'cfg.toml')
