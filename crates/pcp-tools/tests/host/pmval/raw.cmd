-h
localhost
-s
2
-t
0.01
-r
sample.long.bin_ctr
