-h
localhost
-c
tests/derived/semantic.conf
-f
sample.long
se.base
se.nested
