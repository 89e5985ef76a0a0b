-h
localhost
--derived=tests/derived/live.conf
-v
lv.bin
lv.count
lv.unknown
