-h
localhost
-dt
no.such
sample.long.one
no.such.either
