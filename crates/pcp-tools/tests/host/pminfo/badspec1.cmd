-h
::1
sample.long.one
