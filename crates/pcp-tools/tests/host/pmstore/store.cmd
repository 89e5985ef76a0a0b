-h
localhost
sample.long.write_me
13
