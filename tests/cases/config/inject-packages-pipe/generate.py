import os; os.makedirs('p|q')
