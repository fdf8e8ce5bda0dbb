import os; os.makedirs('i$x')
