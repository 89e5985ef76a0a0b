-h
localhost
-F
sample.ulong.write_me
7
