pmprobe -S x
