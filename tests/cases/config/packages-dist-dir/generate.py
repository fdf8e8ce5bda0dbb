import os; os.makedirs('dist/sub'); open('dist/sub/__init__.py','w').close()
