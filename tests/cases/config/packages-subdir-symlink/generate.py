import os; os.makedirs('pkg/sub'); os.symlink('../../kern', 'pkg/sub/kern')
