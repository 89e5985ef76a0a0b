-h
localhost
-v
sample.long
sample.bin
sample.noinst
sample.bad
