-h
localhost
-d
sample.long.one
sample.long.ten
--env
PCP_RS_MANGLE=0x7005,1,4,0x7009
