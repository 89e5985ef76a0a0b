-h
localhost
-s
3
-t
0.01
sample.long.hundred
