pmprobe -z -h h1 -h h2 -L
