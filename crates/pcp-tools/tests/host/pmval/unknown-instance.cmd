-h
localhost
-s
1
-i
nosuch
sample.bin
