# Made at run time: a FIFO where the readme should be (reading it would block)
import os
os.remove("README.md")
os.mkfifo("README.md")
