-h
localhost
sample.long.write_me
x
