-h
localhost
sample.long.write_me
1
--env
PMCD_PORT=1
