-h
localhost
-l
sample.bin
sample.long.one
