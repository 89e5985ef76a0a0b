pmval --interval=1 --align 1 kernel.all.load
