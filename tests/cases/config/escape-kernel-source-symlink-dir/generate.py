import os; os.makedirs('../outside-d', exist_ok=True); open('../outside-d/y.cu','w').write('x'); os.symlink(os.path.abspath('../outside-d'), 'kern/d')
