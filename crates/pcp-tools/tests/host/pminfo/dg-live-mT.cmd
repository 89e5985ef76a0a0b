-h
localhost
-c
tests/derived/live.conf
-mT
lv.ar
lv.ctr
