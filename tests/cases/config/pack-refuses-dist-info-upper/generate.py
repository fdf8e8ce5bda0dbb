import os; os.makedirs('st/other-1.0.DIST-INFO'); open('st/other-1.0.DIST-INFO/METADATA','w').write('x')
