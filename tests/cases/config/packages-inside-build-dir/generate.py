import os; os.makedirs('build/cuwheel/stage'); open('build/cuwheel/stage/__init__.py','w').close()
