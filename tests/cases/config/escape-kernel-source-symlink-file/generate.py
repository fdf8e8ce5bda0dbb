import os; open('../outside-x.cu','w').write('x'); os.symlink(os.path.abspath('../outside-x.cu'), 'kern/x.cu')
