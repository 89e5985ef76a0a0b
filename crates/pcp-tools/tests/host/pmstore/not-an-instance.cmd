-h
localhost
-i
red
sample.long.write_me
1
