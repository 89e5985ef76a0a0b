-h
localhost
-F
sample.double.write_me
2.25
