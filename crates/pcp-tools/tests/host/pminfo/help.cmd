-h
localhost
-tT
sample.long
sample.bin
29.1
29.2
