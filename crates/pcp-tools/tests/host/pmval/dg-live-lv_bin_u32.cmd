-h
localhost
--derived=tests/derived/live.conf
-s
2
-t
0.1
lv.bin.u32
