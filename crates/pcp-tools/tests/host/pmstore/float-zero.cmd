-h
localhost
sample.float.write_me
0
