-h
localhost
-Z
EST
-s
1
sample.double.million
