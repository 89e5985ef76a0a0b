-Dfetch
-z
-s
2
-t
0.1
sample.long.one
