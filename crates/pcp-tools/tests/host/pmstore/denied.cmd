-h
localhost
sample.long.one
5
