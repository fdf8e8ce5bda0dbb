import os; os.symlink('.', 'kern/self')
