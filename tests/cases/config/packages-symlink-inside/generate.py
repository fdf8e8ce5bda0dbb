import os; os.symlink('../kern/k.cu', 'pkg/alias.cu')
