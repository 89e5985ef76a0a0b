-h
a:b:c
sample.long.one
