pmprobe -i -v
