import os; os.makedirs('pkg-stubs'); open('pkg-stubs/__init__.pyi','w').close()
