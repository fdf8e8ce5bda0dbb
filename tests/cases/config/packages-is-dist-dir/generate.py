import os; os.makedirs('dist'); open('dist/__init__.py','w').close()
