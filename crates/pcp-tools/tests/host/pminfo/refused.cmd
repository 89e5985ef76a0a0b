-h
localhost
-f
sample.long.one
--env
PMCD_PORT=1
