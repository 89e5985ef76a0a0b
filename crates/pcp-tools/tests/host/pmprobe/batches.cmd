-h
localhost
-b
2
-v
sample.long
