-v
sample.long.one
