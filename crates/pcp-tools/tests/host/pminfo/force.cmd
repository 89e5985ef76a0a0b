-h
localhost
-F
sample.long.one
sample.bin
