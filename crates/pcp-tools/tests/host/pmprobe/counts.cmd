-h
localhost
sample.long
sample.ulong
sample.bin
