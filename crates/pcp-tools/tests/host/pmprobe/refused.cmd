-h
localhost
sample.long.one
--env
PMCD_PORT=1
