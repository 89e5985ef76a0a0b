-h
nosuchhost.invalid
sample.long.write_me
1
