import os; os.makedirs('sub/x.data/inner'); open('sub/x.data/inner/__init__.py','w').close()
