import os; os.makedirs('a,b')
