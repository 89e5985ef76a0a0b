pmval -s x -t junk kernel.all.load
