import os; os.makedirs('pkg/sub'); open('pkg/sub/x\ny.py','w').write('')
