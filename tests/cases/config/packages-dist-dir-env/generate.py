import os; os.makedirs('wheels/sub'); open('wheels/sub/__init__.py','w').close()
