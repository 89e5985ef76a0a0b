-h
localhost
-l
sample.long.one
sample.long.ten
--env
PCP_RS_MANGLE=0x7013,3,24,-1
