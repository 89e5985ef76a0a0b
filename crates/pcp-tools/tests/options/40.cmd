pmval -S 1 kernel.all.load
