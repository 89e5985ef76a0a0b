-h
box:x
-s
1
sample.long.one
