-h
[::1]x
sample.long.one
