import os; os.makedirs('st/X.DATA/purelib'); open('st/X.DATA/purelib/json.py','w').write('x')
