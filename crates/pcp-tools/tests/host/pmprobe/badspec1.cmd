-h
localhost:44321,
-v
sample.long.one
