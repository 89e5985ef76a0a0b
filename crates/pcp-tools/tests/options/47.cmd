pmval -s -1 -t 5x kernel.all.load -i
