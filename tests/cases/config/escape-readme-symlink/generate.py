import os; open('../outside-n.md','w').write('x'); os.symlink(os.path.abspath('../outside-n.md'), 'NOTES.md')
