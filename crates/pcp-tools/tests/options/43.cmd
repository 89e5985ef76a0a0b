pmval -t 0 -p x -g kernel.all.load
