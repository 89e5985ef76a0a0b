-h
localhost
-c
tests/derived/arith.conf
-d
ar
