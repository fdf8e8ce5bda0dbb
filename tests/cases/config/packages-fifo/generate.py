import os; os.makedirs('pkg/sub/deeper'); os.mkfifo('pkg/sub/deeper/pipe')
