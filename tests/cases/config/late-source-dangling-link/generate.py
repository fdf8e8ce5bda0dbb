import os; os.symlink('nowhere.cu', 'kern/gone.cu')
