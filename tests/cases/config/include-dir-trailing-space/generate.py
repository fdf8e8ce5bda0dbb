import os; os.makedirs('inc/s ')
