-h
localhost
sample.long
sample.ulong
