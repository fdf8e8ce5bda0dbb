import os; os.symlink('/etc/hostname', 'COPYING')
