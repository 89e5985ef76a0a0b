-a

sample.long.one
