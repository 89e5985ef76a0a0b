-V
-h
localhost
sample.long.one
sample.bin
