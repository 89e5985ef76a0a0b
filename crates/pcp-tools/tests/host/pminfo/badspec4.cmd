-h
localhost:
sample.long.one
