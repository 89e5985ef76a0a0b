-s
1
sample.ulong.ten
