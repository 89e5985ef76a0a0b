-h
localhost
-c
tests/derived/instance.conf
-d
in
