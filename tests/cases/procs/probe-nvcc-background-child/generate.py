import os
import sys
sys.path.insert(0, '.')
from gen import GOOD_VERSION, toolkit, use_toolkit

# A wrapper nvcc (no nvcc.profile) that leaves `sleep 1000 &` holding its stdout on every
# call: discovery follows it to the real toolkit without waiting for the sleep (the probe
# timeout is 200 s in env, the runner's limit 300 s).
toolkit('realcuda', GOOD_VERSION)
real = os.path.abspath('realcuda') + '/bin/nvcc'
toolkit('wrapcuda', GOOD_VERSION, profile=False,
        extra=f'sleep 1000 &\nexec "{real}" "$@"\n')
use_toolkit('wrapcuda')
