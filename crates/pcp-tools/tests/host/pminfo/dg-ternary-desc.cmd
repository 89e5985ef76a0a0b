-h
localhost
-c
tests/derived/ternary.conf
-d
te
