-h
localhost
no.such
sample.long.one
