-h
localhost
-c
tests/derived/relational.conf
-d
re
