-s
1
:sample.long.one
