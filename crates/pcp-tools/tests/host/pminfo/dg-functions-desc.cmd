-h
localhost
-c
tests/derived/functions.conf
-d
fn
