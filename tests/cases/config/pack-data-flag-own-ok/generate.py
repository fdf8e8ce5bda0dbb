import os; os.makedirs('st/demo-1.0.data/scripts'); open('st/demo-1.0.data/scripts/pip','w').write('x'); os.makedirs('st/pkg'); open('st/pkg/__init__.py','w').close()
