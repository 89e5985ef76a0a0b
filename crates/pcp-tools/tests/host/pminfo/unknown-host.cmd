-h
nosuchhost.invalid
sample.long.one
