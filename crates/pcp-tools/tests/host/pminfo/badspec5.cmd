-h
local:/run/pcp/pmcd.socket:
sample.long.one
