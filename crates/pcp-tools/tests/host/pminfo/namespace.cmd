-h
localhost
-n
tests/host/pminfo/ns.pmns
-dmf
sample.long.one
sample.long.ten
