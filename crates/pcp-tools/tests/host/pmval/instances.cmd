-h
localhost
-s
2
-t
0.01
sample.bin
