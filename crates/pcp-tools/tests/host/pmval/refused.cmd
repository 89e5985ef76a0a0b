-h
localhost
-s
1
sample.long.one
--env
PMCD_PORT=1
