-h
localhost
sample.long
sample.ulong.count
--env
PCP_RS_MANGLE=0x700e,1,20,1000
