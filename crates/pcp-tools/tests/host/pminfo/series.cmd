-h
localhost
-s
sample.long.one
sample.bin
