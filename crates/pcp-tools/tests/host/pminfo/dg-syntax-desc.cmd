-h
localhost
-c
tests/derived/syntax.conf
-d
sy
