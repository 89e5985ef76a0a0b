-h
localhost
-dmMtTlf
sample.long.one
sample.long.ten
sample.long.hundred
sample.long.million
