-h
localhost
-b
3
-f
sample.long
sample.ulong
