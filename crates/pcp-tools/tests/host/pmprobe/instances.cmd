-h
localhost
-iI
sample.long.one
sample.bin
