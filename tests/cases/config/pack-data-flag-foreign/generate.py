import os; os.makedirs('st/tiny-0.1.0+cu130.data/scripts'); open('st/tiny-0.1.0+cu130.data/scripts/pip','w').write('x')
