import os; os.makedirs('Evil.DATA/scripts')
