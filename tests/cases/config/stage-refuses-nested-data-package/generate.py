import os; os.makedirs('src/evil.Data/scripts')
