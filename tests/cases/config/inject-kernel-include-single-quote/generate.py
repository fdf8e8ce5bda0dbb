import os; os.makedirs("inc/s'%' ; touch PWNED '")
