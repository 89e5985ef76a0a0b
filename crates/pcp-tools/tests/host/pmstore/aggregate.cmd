-h
localhost
sample.aggregate.write_me
x
