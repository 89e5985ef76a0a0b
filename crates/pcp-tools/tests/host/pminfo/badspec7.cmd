-h
fe80::1%lo
sample.long.one
