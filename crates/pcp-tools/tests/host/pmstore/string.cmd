-h
localhost
sample.string.write_me
hullo
