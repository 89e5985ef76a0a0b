-h
localhost
-tT
sample.long.one
sample.long.ten
--env
PCP_RS_MANGLE=0x7009,1,16,1000
