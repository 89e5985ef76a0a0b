-h
localhost
-F
-v
no.such
sample.long.one
sample.long
