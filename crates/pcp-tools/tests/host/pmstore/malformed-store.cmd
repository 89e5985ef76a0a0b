-h
localhost
sample.long.write_me
13
--env
PCP_RS_MANGLE=0x7000,2,4,0x7005
