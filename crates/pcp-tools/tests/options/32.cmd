pmprobe -V -d
