-h
localhost
-fiI
sample.bin
sample.long.one
