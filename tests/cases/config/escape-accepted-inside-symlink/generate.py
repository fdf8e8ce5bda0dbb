import os; os.symlink('k.cu', 'kern/alias.cu')
