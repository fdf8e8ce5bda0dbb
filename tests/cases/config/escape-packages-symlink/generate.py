import os; os.makedirs('../outside-p', exist_ok=True); os.symlink(os.path.abspath('../outside-p'), 'other')
