-h
localhost
-c
tests/derived/live.conf
-df
lv
