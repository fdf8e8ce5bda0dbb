import os; os.makedirs('demo-1.0.dist-info'); open('demo-1.0.dist-info/METADATA','w').write('Name: x')
