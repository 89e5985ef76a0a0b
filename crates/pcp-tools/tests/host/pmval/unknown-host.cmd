-h
nosuchhost.invalid
-s
1
sample.long.one
