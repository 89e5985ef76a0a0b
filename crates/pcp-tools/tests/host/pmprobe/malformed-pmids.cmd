-h
localhost
-v
sample.long.one
sample.long.ten
--env
PCP_RS_MANGLE=0x700d,1,16,1000
