import os; os.makedirs('extra'); open('extra/json.py','w').write('x = 1\n')
