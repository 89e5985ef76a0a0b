pmprobe -b 12x -v -I
