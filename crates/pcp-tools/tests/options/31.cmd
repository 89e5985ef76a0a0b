pmprobe -e
