import os; os.makedirs('my-pkg'); open('my-pkg/__init__.py','w').close()
