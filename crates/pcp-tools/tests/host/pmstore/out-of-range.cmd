-h
localhost
sample.long.write_me
99999999999
