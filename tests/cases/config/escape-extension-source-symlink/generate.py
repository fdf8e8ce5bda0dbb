import os; open('../outside-e.c','w').write('x'); os.symlink(os.path.abspath('../outside-e.c'), 'src/evil.c')
