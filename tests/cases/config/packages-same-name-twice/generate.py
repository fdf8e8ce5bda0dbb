import os; os.makedirs('src/pkg'); open('src/pkg/__init__.py','w').close()
