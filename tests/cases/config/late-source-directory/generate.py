import os; os.makedirs('src/sub.c')
