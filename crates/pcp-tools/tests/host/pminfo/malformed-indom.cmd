-h
localhost
-f
sample.colour
sample.long.one
--env
PCP_RS_MANGLE=0x7007,1,16,1000
