-h
localhost
-z
-s
2
-t
0.01
sample.long.one
