pmval -w 0 -f x -d -h local: kernel.all.load
