-h
localhost
-c
tests/derived/semantic.conf
-d
se
