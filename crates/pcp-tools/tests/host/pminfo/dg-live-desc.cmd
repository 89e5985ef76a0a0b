-h
localhost
-c
tests/derived/live-desc.conf
-d
ld
