import os; os.symlink('/usr/include', 'inc/up')
