-h
localhost
--derived=tests/derived/semantic.conf
-v
sample.long
se.base
