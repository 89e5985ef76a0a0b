-h
localhost
-c
tests/derived/units.conf
-d
un
