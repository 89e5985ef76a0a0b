-h
localhost
-c
tests/derived/boolean.conf
-d
bo
